-- The tables the reference SQL (reference_new_key.sql) runs on: the merchants, idempotency
-- records and orders as the engine had them when the reference was fixed (2026-12), in a
-- schema of their own. FIXED: when the engine's schema changes, this does not, so the
-- pgbench row stays the same yardstick and the ratio to it measures the engine.
CREATE SCHEMA reference;

CREATE TABLE reference.merchants (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    api_key_hash BYTEA NOT NULL UNIQUE,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE reference.idempotency_keys (
    merchant_id       TEXT NOT NULL REFERENCES reference.merchants (id),
    key               TEXT NOT NULL,
    endpoint          TEXT NOT NULL,
    request_hash      BYTEA NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('in_progress', 'completed', 'failed')),
    recovery_point    TEXT NOT NULL DEFAULT 'started',
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
CREATE INDEX ON reference.idempotency_keys (locked_until) WHERE status = 'in_progress';
CREATE INDEX ON reference.idempotency_keys (expires_at);

CREATE TABLE reference.orders (
    id          TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES reference.merchants (id),
    amount      BIGINT NOT NULL CHECK (amount > 0),
    currency    TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('pending', 'captured', 'cancelled')),
    description TEXT,
    metadata    JSONB NOT NULL DEFAULT '{}',
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX ON reference.orders (merchant_id, created_at DESC, id DESC);
