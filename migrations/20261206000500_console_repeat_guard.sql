-- The console's repeat guard (API.md §9, "Forms and people"; server/src/console/repeats.rs):
-- what each member's console submit made, by the merchant, the form, a fingerprint of the
-- fields that make two submits the same (a payout's amount, currency and IBAN; an API key's
-- name; an endpoint's rotation; an invitation's email), and the form's idempotency key, with the
-- page of what it made. A submit of the same fingerprint under another key within 10 minutes is
-- held back as a repeat. Rows older than a day are deleted as new ones come.
CREATE TABLE console_submits (
    merchant_id     TEXT NOT NULL REFERENCES merchants (id),
    idempotency_key TEXT NOT NULL,
    form            TEXT NOT NULL,
    fingerprint     BYTEA NOT NULL,
    made            TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (merchant_id, idempotency_key)
);

CREATE INDEX console_submits_same ON console_submits (merchant_id, form, fingerprint, created_at);
