-- The database refuses what the API refuses, so no code path (a console form, a script, a bug)
-- can store an amount or a currency the contract does not allow (API.md §1: 1 ..= 10^11 minor
-- units, an upper-case ISO 4217 code). The index serves the purge of events past their retention.

ALTER TABLE orders ADD CONSTRAINT orders_amount_max CHECK (amount <= 100000000000),
                   ADD CONSTRAINT orders_currency_iso CHECK (currency ~ '^[A-Z]{3}$');
ALTER TABLE payouts ADD CONSTRAINT payouts_amount_max CHECK (amount <= 100000000000),
                    ADD CONSTRAINT payouts_currency_iso CHECK (currency ~ '^[A-Z]{3}$');
ALTER TABLE balances ADD CONSTRAINT balances_currency_iso CHECK (currency ~ '^[A-Z]{3}$');

CREATE INDEX events_created_idx ON events (created_at);
