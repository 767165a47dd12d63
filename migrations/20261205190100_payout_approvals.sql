-- Maker-checker approval of large payouts (issue 19 item 5, API.md §4 and §11): a payout at or
-- above its merchant's threshold for its currency is created `pending_approval` (its amount is
-- debited from the balance, so reserved, and the payout worker does not take it), and moves on
-- to `pending` when another member approves it, or to `rejected` (the amount credited back).
ALTER TABLE payouts DROP CONSTRAINT payouts_status_check;
ALTER TABLE payouts ADD CONSTRAINT payouts_status_check CHECK (
    status IN ('pending_approval', 'rejected', 'pending', 'in_transit', 'paid', 'failed', 'reversed'));

-- Who created the payout (a member by email, or an API key by id; NULL for payouts made before
-- this migration), whether it was created awaiting approval (what its creation answered), and
-- who approved or rejected it, when.
ALTER TABLE payouts
    ADD COLUMN created_by_kind TEXT CHECK (created_by_kind IN ('user', 'api_key', 'support')),
    ADD COLUMN created_by TEXT,
    ADD COLUMN approval_required BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN decided_by TEXT,
    ADD COLUMN decided_at TIMESTAMPTZ,
    ADD CONSTRAINT payouts_decided_together CHECK ((decided_by IS NULL) = (decided_at IS NULL)),
    ADD CONSTRAINT payouts_awaiting_needs_approval CHECK (
        status NOT IN ('pending_approval', 'rejected') OR approval_required);

-- The payouts awaiting a second member, for the console.
CREATE INDEX payouts_pending_approval_idx ON payouts (merchant_id, created_at DESC)
    WHERE status = 'pending_approval';

-- One threshold per merchant and currency, in minor units; no row means no approval needed.
CREATE TABLE approval_thresholds (
    merchant_id TEXT NOT NULL REFERENCES merchants (id),
    currency    TEXT NOT NULL,
    amount      BIGINT NOT NULL CHECK (amount > 0),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (merchant_id, currency)
);

-- Approve and reject take an Idempotency-Key like every POST.
ALTER TYPE idempotency_endpoint ADD VALUE 'POST /v1/payouts/{id}/approve';
ALTER TYPE idempotency_endpoint ADD VALUE 'POST /v1/payouts/{id}/reject';
