-- Merchants, their API keys (SHA-256 of a 256-bit random secret, never the key itself),
-- console users, the idempotency records, orders and balances.
-- Every table carries merchant_id so that it can later be distributed by it.

CREATE TABLE merchants (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    api_key_hash BYTEA NOT NULL UNIQUE,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    merchant_id   TEXT REFERENCES merchants (id),
    role          TEXT NOT NULL CHECK (role IN ('merchant', 'support')),
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK ((role = 'merchant') = (merchant_id IS NOT NULL))
);

CREATE TABLE idempotency_keys (
    merchant_id       TEXT NOT NULL REFERENCES merchants (id),
    key               TEXT NOT NULL,
    endpoint          TEXT NOT NULL,
    request_hash      BYTEA NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('in_progress', 'completed', 'failed')),
    recovery_point    TEXT NOT NULL DEFAULT 'started',
    -- A new token on every claim: only the holder of the current token may complete or fail.
    lease_token       UUID NOT NULL,
    locked_until      TIMESTAMPTZ,
    response_status   SMALLINT,
    response_location TEXT,
    response_body     BYTEA,
    resource_type     TEXT,
    resource_id       TEXT,
    error             TEXT,
    attempts          INT NOT NULL DEFAULT 1,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at        TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (merchant_id, key)
);
CREATE INDEX idempotency_keys_lease_idx ON idempotency_keys (locked_until) WHERE status = 'in_progress';
CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at);

CREATE TABLE orders (
    id          TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants (id),
    amount      BIGINT NOT NULL CHECK (amount > 0),
    currency    TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('pending', 'captured', 'cancelled')),
    description TEXT,
    metadata    JSONB NOT NULL DEFAULT '{}',
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX orders_merchant_recent_idx ON orders (merchant_id, created_at DESC, id DESC);

-- The money a merchant can pay out, per currency: credited once per captured order,
-- debited by payouts that are not failed. Never negative.
CREATE TABLE balances (
    merchant_id TEXT NOT NULL REFERENCES merchants (id),
    currency    TEXT NOT NULL,
    available   BIGINT NOT NULL DEFAULT 0 CHECK (available >= 0),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (merchant_id, currency)
);
