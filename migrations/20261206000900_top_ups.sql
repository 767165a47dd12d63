-- Top-ups: money in from the partner (API.md §13, issue 30 item 3). A merchant's funding
-- reference is what a sender writes on a bank transfer to our funding account so that the money
-- is the merchant's; each is unique. Each transfer the partner received (its `in_…` id) is
-- credited at most once, however it is learnt (its `transfer.received` webhook, reconciliation's
-- listing, both, concurrently): the UNIQUE constraint on `partner_incoming_id` is that guarantee,
-- and the credit's ledger journal and event are written in the transaction that inserts the row.

-- 'KXP' and 12 upper-case hexadecimal digits, made for every merchant (existing ones included:
-- a volatile default is computed per row).
ALTER TABLE merchants ADD COLUMN funding_reference TEXT NOT NULL
    DEFAULT 'KXP' || upper(substr(md5(gen_random_uuid()::text), 1, 12))
    CONSTRAINT merchants_funding_reference_format CHECK (funding_reference ~ '^[A-Z0-9]{6,32}$');
ALTER TABLE merchants ADD CONSTRAINT merchants_funding_reference_key UNIQUE (funding_reference);

CREATE TABLE top_ups (
    id                  TEXT PRIMARY KEY,
    merchant_id         TEXT NOT NULL REFERENCES merchants (id),
    amount              BIGINT NOT NULL CHECK (amount > 0),
    currency            TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    -- The partner's incoming transfer: credited once, ever.
    partner_incoming_id TEXT NOT NULL CONSTRAINT top_ups_partner_incoming_id_key UNIQUE,
    -- What the sender wrote, and when the partner received it.
    reference           TEXT NOT NULL,
    received_at         TIMESTAMPTZ NOT NULL,
    -- Which path credited it first: the partner's webhook or reconciliation.
    credited_by         TEXT NOT NULL CHECK (credited_by IN ('webhook', 'reconciliation')),
    created_at          TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX top_ups_merchant_recent_idx ON top_ups (merchant_id, created_at DESC, id DESC);

-- A top-up is a fact about money that arrived: never changed or deleted (as the ledger).
CREATE TRIGGER top_ups_append_only BEFORE UPDATE OR DELETE ON top_ups
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER top_ups_no_truncate BEFORE TRUNCATE ON top_ups
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only();

-- Money received with a reference that names no merchant: an item `unknown_incoming` of its
-- day's run (no merchant's, so only support staff see it). The kind is added to whatever kinds
-- the check admits when this runs, so that migrations adding other kinds in parallel keep theirs.
DO $$
DECLARE
    definition text;
BEGIN
    SELECT pg_get_constraintdef(oid) INTO STRICT definition FROM pg_constraint
    WHERE conrelid = 'reconciliation_items'::regclass AND conname = 'reconciliation_items_kind_check';
    IF position('''unknown_incoming''' IN definition) = 0 THEN
        EXECUTE 'ALTER TABLE reconciliation_items DROP CONSTRAINT reconciliation_items_kind_check, '
             || 'ADD CONSTRAINT reconciliation_items_kind_check '
             || replace(definition, 'ARRAY[', 'ARRAY[''unknown_incoming''::text, ');
    END IF;
END
$$;
