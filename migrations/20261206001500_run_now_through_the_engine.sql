-- "Run reconciliation now" takes the idempotency engine's one-commit path, keyed by scope and
-- key (issue 28 item 6), instead of a key of its own on the run.
--
-- A key's scope is a merchant, or the platform's support staff together, who act for no
-- merchant: the column `merchant_id` holds the merchant's id or `staff` (no merchant's id:
-- those begin `mer_`), so it can no longer reference `merchants`. Every merchant key is still
-- written by the engine for the authenticated merchant; nothing else writes the table.
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_merchant_id_fkey;
ALTER TYPE idempotency_endpoint ADD VALUE 'POST /reconciliation/run';

-- The run no longer keeps the key of the request that made it: the key's record names the run.
-- A key that made a run before this migration is free again; asking again runs again, which is
-- safe (each duplicate is reversed once, ever).
DROP INDEX reconciliation_runs_request_key;
ALTER TABLE reconciliation_runs DROP COLUMN request_key, DROP COLUMN requested_for;
