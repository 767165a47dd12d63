-- Idempotency records, compact (issue 16, lean records). A record of the one-commit path is
-- written once, completed, and never changes until it is purged; so it stores what a replay and
-- the record's view need, and nothing for the two-phase path's lease:
-- - the endpoint and the status are enum values (4 bytes) instead of text;
-- - the lease (token, deadline), the recovery point, the attempts, the error and `updated_at`
--   are NULL unless the two-phase path wrote them (a NULL costs one bit of the row's bitmap);
--   the view reads them as `finished`, 1, none and `created_at`;
-- - one timestamp, `created_at`: a record expires the idempotency TTL after it (the setting
--   `KAADXPAY_IDEMPOTENCY_TTL`), so `expires_at` is derived, not stored;
-- - columns ordered widest-aligned first, so the row has no padding.
-- The table is rebuilt (rows copied in one statement): a column's place cannot be changed.

CREATE TYPE idempotency_endpoint AS ENUM (
    'POST /v1/orders',
    'POST /v1/payouts',
    'POST /v1/webhook-endpoints',
    'POST /v1/webhook-endpoints/{id}/rotate-secret',
    'POST /v1/webhook-endpoints/{id}/recover',
    'POST /v1/webhook-endpoints/{id}/test',
    'POST /v1/events/{event_id}/redeliver',
    'POST /v1/api-keys',
    'POST /v1/api-keys/{id}/roll'
);

CREATE TYPE idempotency_status AS ENUM ('in_progress', 'completed', 'failed');

CREATE TABLE idempotency_records (
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- The two-phase path's lease: only the holder of the current token may complete or fail.
    locked_until      TIMESTAMPTZ,
    lease_token       UUID,
    updated_at        TIMESTAMPTZ,
    endpoint          idempotency_endpoint NOT NULL,
    status            idempotency_status NOT NULL,
    attempts          INT,
    response_status   SMALLINT,
    merchant_id       TEXT NOT NULL REFERENCES merchants (id),
    key               TEXT NOT NULL,
    request_hash      BYTEA NOT NULL,
    resource_type     TEXT,
    resource_id       TEXT,
    recovery_point    TEXT,
    error             TEXT,
    response_location TEXT,
    response_body     BYTEA
);

INSERT INTO idempotency_records (created_at, locked_until, lease_token, updated_at, endpoint,
    status, attempts, response_status, merchant_id, key, request_hash, resource_type,
    resource_id, recovery_point, error, response_location, response_body)
SELECT created_at, locked_until, CASE WHEN status = 'completed' THEN NULL ELSE lease_token END,
    NULLIF(updated_at, created_at), endpoint::idempotency_endpoint,
    status::idempotency_status, NULLIF(attempts, 1), response_status, merchant_id, key,
    request_hash, resource_type, resource_id, NULLIF(recovery_point, 'finished'), error,
    response_location, response_body
FROM idempotency_keys;

DROP TABLE idempotency_keys;
ALTER TABLE idempotency_records RENAME TO idempotency_keys;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (merchant_id, key);
ALTER TABLE idempotency_keys RENAME CONSTRAINT idempotency_records_merchant_id_fkey
    TO idempotency_keys_merchant_id_fkey;
CREATE INDEX idempotency_keys_lease_idx ON idempotency_keys (locked_until) WHERE status = 'in_progress';
-- The purge's index: records expire in the order they were made.
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

-- The table is insert-only, and the hourly purge deletes about 1/24 of it (an hour of a day's
-- TTL) at its oldest end. With the default scale factor (20 % dead rows) autovacuum would come
-- only every five purges, and the table would carry that much dead space; at 1 % it comes after
-- each purge, and the next hour's records reuse the space the purge freed. The insert threshold
-- keeps the visibility map current, so the purge's index scans stay index-only-cheap.
ALTER TABLE idempotency_keys SET (
    autovacuum_vacuum_scale_factor = 0.01,
    autovacuum_vacuum_insert_scale_factor = 0.05
);
