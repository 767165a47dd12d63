-- Payouts and their execution queue, the partner's webhooks (deduplicated by event id), and
-- reconciliation runs with their items and the reversals they made (one per transfer, ever).

CREATE TABLE payouts (
    id                  TEXT PRIMARY KEY,
    merchant_id         TEXT NOT NULL REFERENCES merchants (id),
    amount              BIGINT NOT NULL CHECK (amount > 0),
    currency            TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('pending', 'in_transit', 'paid', 'failed', 'reversed')),
    destination         JSONB NOT NULL,
    description         TEXT,
    idempotency_key     TEXT NOT NULL,
    -- The end-to-end key sent to the partner on every attempt: kxp-{id}-{idempotency_key}.
    partner_key         TEXT NOT NULL UNIQUE,
    partner_transfer_id TEXT,
    failure_code        TEXT,
    -- The execution queue: due work, the lease of the worker holding it, and its history.
    next_attempt_at     TIMESTAMPTZ,
    locked_until        TIMESTAMPTZ,
    attempts            INT NOT NULL DEFAULT 0,
    last_error          TEXT,
    created_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at          TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX payouts_merchant_recent_idx ON payouts (merchant_id, created_at DESC, id DESC);
CREATE INDEX payouts_due_idx ON payouts (next_attempt_at) WHERE status IN ('pending', 'in_transit');
CREATE INDEX payouts_transfer_idx ON payouts (partner_transfer_id);

CREATE TABLE partner_events (
    event_id    TEXT PRIMARY KEY,
    event_type  TEXT NOT NULL,
    transfer_id TEXT NOT NULL,
    merchant_id TEXT REFERENCES merchants (id),
    payout_id   TEXT REFERENCES payouts (id),
    received_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE reconciliation_runs (
    id         TEXT PRIMARY KEY,
    run_date   DATE NOT NULL,
    applied    BOOLEAN NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX reconciliation_runs_recent_idx ON reconciliation_runs (created_at DESC, id DESC);

CREATE TABLE reconciliation_items (
    run_id      TEXT NOT NULL REFERENCES reconciliation_runs (id),
    position    INT NOT NULL,
    merchant_id TEXT REFERENCES merchants (id),
    kind        TEXT NOT NULL CHECK (kind IN ('matched', 'duplicate', 'missing', 'unknown', 'amount_mismatch')),
    payout_id   TEXT,
    transfer_id TEXT,
    amount      BIGINT,
    currency    TEXT,
    -- For a duplicate: 'reversed' by this run, 'already_reversed', or NULL when not applied.
    action      TEXT,
    PRIMARY KEY (run_id, position)
);
CREATE INDEX reconciliation_items_merchant_idx ON reconciliation_items (merchant_id, run_id);

-- A duplicate transfer is reversed at most once, however many runs apply.
CREATE TABLE partner_reversals (
    transfer_id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants (id),
    payout_id   TEXT NOT NULL REFERENCES payouts (id),
    run_id      TEXT NOT NULL REFERENCES reconciliation_runs (id),
    reversed_at TIMESTAMPTZ,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
