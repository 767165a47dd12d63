-- The purge's index on the minute a record was made, not the instant (issue 32: bytes per
-- record). On `created_at` itself every entry was its own 8-byte key with its row's address,
-- about 23 bytes a record; on the minute, the records of one minute share one key, and the
-- index's deduplication keeps their addresses in posting lists: about 11 bytes a record at
-- the benchmark's rate. The purge still walks the index in order (the minute first, then the
-- row's address) and stops after a batch, and checks each row's own `created_at`, so it
-- deletes the same records as before, to the microsecond (`maintenance::PURGE_BATCH`).
--
-- Not BRIN: the table's space is reused after each purge (the next hour's records fill what
-- the purge freed), and a block range's summary only ever widens, so after a day every range
-- would match every purge and each batch would read the table from its first page.
DROP INDEX idempotency_keys_created_idx;
CREATE INDEX idempotency_keys_created_idx
    ON idempotency_keys (date_bin('1 minute', created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00'));
