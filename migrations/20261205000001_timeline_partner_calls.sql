-- Every call the payout worker makes to the partner, with what it answered: a payout's
-- timeline shows them (issue 18). Written off the request path, after the call; purged after
-- KAADXPAY_PARTNER_CALL_RETENTION.
CREATE TABLE partner_calls (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    merchant_id TEXT NOT NULL,
    payout_id   TEXT NOT NULL,
    -- `create`, `status` or `listing`.
    call        TEXT NOT NULL,
    partner_key TEXT NOT NULL,
    answer      TEXT NOT NULL,
    latency_ms  INT NOT NULL,
    at          TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX partner_calls_payout_idx ON partner_calls (payout_id, at);
CREATE INDEX partner_calls_at_idx ON partner_calls (at);

-- Support's search finds a payout by any partner transfer id it was seen with.
CREATE INDEX partner_events_transfer_idx ON partner_events (transfer_id);
CREATE INDEX reconciliation_items_transfer_idx ON reconciliation_items (transfer_id);
