-- The double-entry ledger (API.md §13, issue 30 item 1). Every change of a merchant's money is
-- a journal of entries on accounts that sum to zero per currency, written in the transaction of
-- its cause: the merchant's own `available` and `reserved`, and the accounts outside it that the
-- money comes from or goes to (`customers`, who pay captured orders and receive refunds through
-- the partner; `partner`, the bank that carries payouts and refunds out and top-ups in; and
-- `opening`, where the balances kept before the ledger came from). The balance row of each
-- merchant and currency keeps the sums of its `available` and `reserved` entries, updated by the
-- same statement that writes the journal; `kaadxpay ledger verify` proves they agree.
--
-- The statement (`balance_transactions`) is one row per journal that changes `available`, with
-- the balance after it. Journals, entries and statement rows are never changed or deleted: the
-- triggers below refuse it, and deploy/roles.sql gives the server's role no right to.

-- What is reserved: payouts awaiting approval (their amount left `available` when made).
ALTER TABLE balances ADD COLUMN reserved BIGINT NOT NULL DEFAULT 0 CHECK (reserved >= 0);
COMMENT ON TABLE balances IS
    'The sums of each merchant''s available and reserved ledger entries per currency, kept by ledger postings.';

CREATE TABLE ledger_journals (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants (id),
    currency    TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    -- What moved the money; the statement's `type` for the journals that change `available`.
    kind        TEXT NOT NULL CHECK (kind IN ('opening', 'order_captured', 'payout',
                  'payout_returned', 'reservation', 'reservation_released', 'payout_approved',
                  'refund', 'refund_returned', 'top_up')),
    -- The object whose change it is (none for an opening).
    source_type TEXT CHECK (source_type IN ('order', 'payout', 'refund', 'top_up', 'reversal')),
    source_id   TEXT,
    -- The clock when written, after the balance row was locked: in the order of the balance's
    -- changes, whatever order their transactions began in.
    created_at  TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    CONSTRAINT ledger_journals_source_together CHECK ((source_type IS NULL) = (source_id IS NULL))
);
CREATE INDEX ledger_journals_merchant_idx ON ledger_journals (merchant_id, currency, id);
CREATE INDEX ledger_journals_source_idx ON ledger_journals (merchant_id, source_id);

CREATE TABLE ledger_entries (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    journal_id  BIGINT NOT NULL REFERENCES ledger_journals (id),
    merchant_id TEXT NOT NULL REFERENCES merchants (id),
    currency    TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    account     TEXT NOT NULL CHECK (account IN ('available', 'reserved', 'customers', 'partner',
                  'opening')),
    -- Signed minor units: what the account changed by.
    amount      BIGINT NOT NULL CHECK (amount <> 0)
);
CREATE INDEX ledger_entries_journal_idx ON ledger_entries (journal_id);
CREATE INDEX ledger_entries_account_idx ON ledger_entries (merchant_id, currency, account);

CREATE TABLE balance_transactions (
    id            TEXT PRIMARY KEY,
    merchant_id   TEXT NOT NULL REFERENCES merchants (id),
    journal_id    BIGINT NOT NULL UNIQUE REFERENCES ledger_journals (id),
    type          TEXT NOT NULL CHECK (type IN ('order_captured', 'payout', 'payout_returned',
                    'refund', 'refund_returned', 'top_up', 'reservation', 'reservation_released')),
    -- Signed minor units: what `available` changed by.
    amount        BIGINT NOT NULL CHECK (amount <> 0),
    currency      TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    balance_after BIGINT NOT NULL CHECK (balance_after >= 0),
    source_type   TEXT NOT NULL CHECK (source_type IN ('order', 'payout', 'refund', 'top_up',
                    'reversal')),
    source_id     TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX balance_transactions_merchant_recent_idx
    ON balance_transactions (merchant_id, created_at DESC, id DESC);

CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;

DO $$
DECLARE
    ledger_table text;
BEGIN
    FOREACH ledger_table IN ARRAY ARRAY['ledger_journals', 'ledger_entries', 'balance_transactions'] LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE UPDATE OR DELETE ON %I '
                       'FOR EACH ROW EXECUTE FUNCTION ledger_append_only()',
                       ledger_table || '_append_only', ledger_table);
        EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I '
                       'FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only()',
                       ledger_table || '_no_truncate', ledger_table);
    END LOOP;
END
$$;

-- The balances kept so far open the ledger: what payouts awaiting approval hold moves from
-- `available`'s history to `reserved` (it was debited when they were made), and each balance
-- row gets one journal from `opening` to its available and reserved amounts.
UPDATE balances b SET reserved = waiting.amount
FROM (SELECT merchant_id, currency, sum(amount) AS amount FROM payouts
      WHERE status = 'pending_approval' GROUP BY merchant_id, currency) waiting
WHERE b.merchant_id = waiting.merchant_id AND b.currency = waiting.currency;

WITH opened AS (
    INSERT INTO ledger_journals (merchant_id, currency, kind)
    SELECT merchant_id, currency, 'opening' FROM balances WHERE available + reserved > 0
    RETURNING id, merchant_id, currency
)
INSERT INTO ledger_entries (journal_id, merchant_id, currency, account, amount)
SELECT opened.id, opened.merchant_id, opened.currency, entry.account, entry.amount
FROM opened
JOIN balances b ON b.merchant_id = opened.merchant_id AND b.currency = opened.currency
CROSS JOIN LATERAL (VALUES ('opening', -(b.available + b.reserved)), ('available', b.available),
                           ('reserved', b.reserved)) AS entry (account, amount)
WHERE entry.amount <> 0;
