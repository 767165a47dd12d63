-- Webhooks to merchants: their endpoints, the events (written in the transaction of the change
-- they report: the outbox), one delivery per event and subscribed endpoint (the queue the
-- dispatcher drains with FOR UPDATE SKIP LOCKED and a lease), and every attempt made.
-- Every table carries merchant_id so that it can later be distributed by it.

CREATE TABLE webhook_endpoints (
    id          TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants (id),
    url         TEXT NOT NULL,
    -- Event types it subscribes to; '*' is every type.
    events      TEXT[] NOT NULL,
    -- whsec_ + base64 of 32 random bytes, the Standard Webhooks signing key.
    secret      TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- Set when the endpoint answered 410 Gone: nothing more is sent to it.
    disabled_at TIMESTAMPTZ,
    -- Set by DELETE: hidden, nothing more is sent to it, its history kept.
    deleted_at  TIMESTAMPTZ
);
CREATE INDEX webhook_endpoints_merchant_idx ON webhook_endpoints (merchant_id, created_at DESC, id DESC);

CREATE TABLE events (
    id          UUID PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants (id),
    event_type  TEXT NOT NULL,
    -- The exact body sent on every attempt.
    payload     JSONB NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX events_merchant_recent_idx ON events (merchant_id, created_at DESC, id DESC);

CREATE TABLE webhook_deliveries (
    id              UUID PRIMARY KEY,
    merchant_id     TEXT NOT NULL REFERENCES merchants (id),
    event_id        UUID NOT NULL REFERENCES events (id),
    endpoint_id     TEXT NOT NULL REFERENCES webhook_endpoints (id),
    status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'disabled')),
    attempts        INT NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- A new token on every claim: only the holder of the current token records the outcome.
    lease_token     UUID,
    locked_until    TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id) WHERE status = 'pending';

CREATE TABLE webhook_attempts (
    -- The kaadxpay-delivery-id header of this attempt.
    id          UUID PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants (id),
    delivery_id UUID NOT NULL REFERENCES webhook_deliveries (id),
    status_code SMALLINT,
    latency_ms  INT NOT NULL,
    error       TEXT,
    at          TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, at);
