-- Webhook endpoint secrets rest sealed (issue 27 items 5 and 7, API.md §11): `secret_sealed`
-- and, during a rotation's overlap, `previous_secret_sealed` hold XChaCha20-Poly1305 seals made
-- with KAADXPAY_SECRETS_KEY for the endpoint's id (server/src/webhooks/secrets.rs). The
-- migration has no key: the clear columns stay for the rows written before, and `serve` seals
-- them (and the stored answers that show a secret) at start, leaving the clear columns NULL.
ALTER TABLE webhook_endpoints
    ADD COLUMN secret_sealed BYTEA,
    ADD COLUMN previous_secret_sealed BYTEA,
    ALTER COLUMN secret DROP NOT NULL,
    DROP CONSTRAINT webhook_endpoints_previous_secret_expiry,
    ADD CONSTRAINT webhook_endpoints_secret_once
        CHECK ((secret IS NULL) <> (secret_sealed IS NULL)),
    ADD CONSTRAINT webhook_endpoints_previous_secret_expiry
        CHECK ((previous_secret IS NULL AND previous_secret_sealed IS NULL)
               = (previous_secret_expires_at IS NULL));
