-- The tables the bare effect (bare_effect.sql) runs on: orders, their events and webhook
-- deliveries, and the endpoints deliveries go to, shaped like the server's tables (`migrations/`:
-- columns, constraints and indexes) as they stood when the bare effect was fixed (2026-12), in
-- the schema `reference` beside the reference SQL's tables (run after reference_schema.sql,
-- whose merchants they belong to). FIXED: when the server's schema changes, this does not.
CREATE TABLE reference.bare_orders (
    id          TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES reference.merchants (id),
    amount      BIGINT NOT NULL CHECK (amount > 0 AND amount <= 100000000000),
    currency    TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    status      TEXT NOT NULL CHECK (status IN ('pending', 'captured', 'cancelled')),
    description TEXT,
    metadata    JSONB NOT NULL DEFAULT '{}',
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX ON reference.bare_orders (merchant_id, created_at DESC, id DESC);

CREATE TABLE reference.bare_webhook_endpoints (
    id          TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES reference.merchants (id),
    url         TEXT NOT NULL,
    events      TEXT[] NOT NULL,
    secret      TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    disabled_at TIMESTAMPTZ,
    deleted_at  TIMESTAMPTZ
);
CREATE INDEX ON reference.bare_webhook_endpoints (merchant_id, created_at DESC, id DESC);

CREATE TABLE reference.bare_events (
    id          UUID PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES reference.merchants (id),
    event_type  TEXT NOT NULL,
    payload     JSONB NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX ON reference.bare_events (merchant_id, created_at DESC, id DESC);
CREATE INDEX ON reference.bare_events (created_at);

CREATE TABLE reference.bare_webhook_deliveries (
    id              UUID PRIMARY KEY,
    merchant_id     TEXT NOT NULL REFERENCES reference.merchants (id),
    event_id        UUID NOT NULL REFERENCES reference.bare_events (id),
    endpoint_id     TEXT NOT NULL REFERENCES reference.bare_webhook_endpoints (id),
    status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'disabled')),
    attempts        INT NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    lease_token     UUID,
    locked_until    TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX ON reference.bare_webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX ON reference.bare_webhook_deliveries (event_id);
CREATE INDEX ON reference.bare_webhook_deliveries (endpoint_id) WHERE status = 'pending';
CREATE INDEX ON reference.bare_webhook_deliveries (endpoint_id) WHERE status IN ('failed', 'disabled');
