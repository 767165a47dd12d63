-- Refunds (API.md §13, issue 30 item 4): money back to a captured order's customer, carried by
-- the partner like a payout. A refund debits `available` when made (the ledger's `refund`
-- movement) and goes to the partner from the same queue shape as payouts (due time, lease,
-- fencing token, claim counter), so the payout worker's machinery works both.
--
-- The refundable invariant lives on the order: `amount_refunded` is the sum of its refunds that
-- are not `failed`. A refund raises it with ONE conditional UPDATE (`amount_refunded + amount <=
-- amount`), whose row lock serialises racing refunds of the order, and a failed refund lowers it
-- in the transaction of its failure; the CHECK below is the backstop.

ALTER TYPE idempotency_endpoint ADD VALUE 'POST /v1/orders/{id}/refunds';

ALTER TABLE orders ADD COLUMN amount_refunded BIGINT NOT NULL DEFAULT 0;
ALTER TABLE orders ADD CONSTRAINT orders_refundable
    CHECK (amount_refunded >= 0 AND amount_refunded <= amount);

CREATE TABLE refunds (
    id                  TEXT PRIMARY KEY,
    merchant_id         TEXT NOT NULL REFERENCES merchants (id),
    order_id            TEXT NOT NULL REFERENCES orders (id),
    amount              BIGINT NOT NULL CHECK (amount > 0),
    currency            TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    status              TEXT NOT NULL
                          CHECK (status IN ('pending', 'in_transit', 'succeeded', 'failed')),
    destination         JSONB NOT NULL,
    reason              TEXT CHECK (reason IN ('requested_by_customer', 'duplicate', 'fraudulent')),
    description         TEXT,
    idempotency_key     TEXT NOT NULL,
    -- The end-to-end key sent to the partner on every attempt: kxp-{id}-{idempotency_key}.
    partner_key         TEXT NOT NULL UNIQUE,
    partner_transfer_id TEXT UNIQUE,
    failure_code        TEXT,
    -- Duplicate transfers of this refund that reconciliation reversed (the refund stays as it is).
    duplicates_reversed INT NOT NULL DEFAULT 0,
    -- Who made it: `user` (by email) or `api_key` (by id).
    created_by_kind     TEXT,
    created_by          TEXT,
    -- The execution queue, as on payouts.
    next_attempt_at     TIMESTAMPTZ,
    locked_until        TIMESTAMPTZ,
    lease_token         UUID,
    attempts            INT NOT NULL DEFAULT 0,
    last_error          TEXT,
    created_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at          TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX refunds_merchant_recent_idx ON refunds (merchant_id, created_at DESC, id DESC);
CREATE INDEX refunds_order_idx ON refunds (merchant_id, order_id, created_at DESC, id DESC);
CREATE INDEX refunds_due_idx ON refunds (next_attempt_at) WHERE status IN ('pending', 'in_transit');

-- Every transfer we send the partner, whatever it pays: a payout's or a refund's. The partner's
-- webhooks, reconciliation and the reversal worker read this, so one path serves both; `status`
-- is the sender's own (a refund's `succeeded` is its transfer's `paid`, see `RefundStatus`).
CREATE VIEW outgoing_transfers AS
    SELECT 'payout' AS kind, id, merchant_id, amount, currency, status, idempotency_key,
           partner_key, partner_transfer_id, created_at
    FROM payouts
    UNION ALL
    SELECT 'refund', id, merchant_id, amount, currency, status, idempotency_key,
           partner_key, partner_transfer_id, created_at
    FROM refunds;

-- The partner's events, reversals of duplicates and calls name the payout or the refund
-- (`po_…` or `re_…`) whose transfer they concern, in the column named `payout_id` since payouts
-- came first: it can no longer reference `payouts` alone.
ALTER TABLE partner_events DROP CONSTRAINT partner_events_payout_id_fkey;
ALTER TABLE partner_reversals DROP CONSTRAINT partner_reversals_payout_id_fkey;
COMMENT ON COLUMN partner_events.payout_id IS 'The payout or refund whose transfer the event concerns.';
COMMENT ON COLUMN partner_reversals.payout_id IS 'The payout or refund the duplicate transfer was made for.';
COMMENT ON COLUMN partner_calls.payout_id IS 'The payout or refund whose transfer the call concerns.';
