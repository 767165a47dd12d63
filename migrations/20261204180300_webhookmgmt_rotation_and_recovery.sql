-- Managing webhook endpoints (API.md §5): a rotated secret's predecessor, with which deliveries
-- are still signed (beside the new secret) until its overlap ends, and an index that finds an
-- endpoint's stopped deliveries for `recover`.

ALTER TABLE webhook_endpoints
    ADD COLUMN previous_secret            TEXT,
    ADD COLUMN previous_secret_expires_at TIMESTAMPTZ,
    ADD CONSTRAINT webhook_endpoints_previous_secret_expiry
        CHECK ((previous_secret IS NULL) = (previous_secret_expires_at IS NULL));

CREATE INDEX webhook_deliveries_stopped_idx ON webhook_deliveries (endpoint_id)
    WHERE status IN ('failed', 'disabled');
