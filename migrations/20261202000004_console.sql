-- The console: failed sign-ins (for throttling, shared by every app server) and the hourly
-- idempotency outcomes shown on the overview's chart. Sessions live in tower-sessions' own table.

CREATE TABLE login_failures (
    email     TEXT NOT NULL,
    failed_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX login_failures_email_idx ON login_failures (email, failed_at);

CREATE TABLE idempotency_outcomes (
    merchant_id TEXT NOT NULL REFERENCES merchants (id),
    hour        TIMESTAMPTZ NOT NULL,
    outcome     TEXT NOT NULL CHECK (outcome IN ('new', 'replayed', 'in_progress', 'mismatch')),
    count       BIGINT NOT NULL,
    PRIMARY KEY (merchant_id, hour, outcome)
);
