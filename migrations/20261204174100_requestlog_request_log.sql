-- The request log (API.md §12, server/src/request_log/): one row per authenticated /v1 request,
-- written in batches off the request's path. Partitioned by UTC day so that retention drops whole
-- days (a DROP TABLE, never a scan); the partitions are created ahead by
-- request_log_add_partitions, which the writer and the purge worker call.
CREATE TABLE request_log (
    id                text        NOT NULL,
    created_at        timestamptz NOT NULL,
    merchant_id       text        NOT NULL,
    api_key_id        text,
    user_id           text,
    method            text        NOT NULL,
    route             text        NOT NULL,
    path              text        NOT NULL,
    idempotency_key   text,
    verdict           text CHECK (verdict IN ('new', 'replayed', 'in_progress', 'mismatch')),
    status            smallint    NOT NULL,
    error_code        text,
    latency_ms        double precision NOT NULL,
    client_address    text,
    request_body      text,
    response_body     text,
    client_request_id text,
    PRIMARY KEY (id, created_at)
) PARTITION BY RANGE (created_at);

-- A merchant's requests newest first, and a key's requests (its timeline) in time order.
CREATE INDEX request_log_merchant_created ON request_log (merchant_id, created_at DESC, id DESC);
CREATE INDEX request_log_merchant_key ON request_log (merchant_id, idempotency_key, created_at)
    WHERE idempotency_key IS NOT NULL;

-- The partitions of the `days` UTC days from `first`, named request_log_YYYYMMDD, unless they
-- exist; a missing one is made under an advisory lock, so that replicas never race on the
-- catalog, and an existing one costs no lock at all.
CREATE FUNCTION request_log_add_partitions(first date, days integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    day date;
    name text;
BEGIN
    FOR offset_days IN 0 .. days - 1 LOOP
        day := first + offset_days;
        name := 'request_log_' || to_char(day, 'YYYYMMDD');
        IF to_regclass(name) IS NULL THEN
            PERFORM pg_advisory_xact_lock(hashtext('request_log_partitions'));
            IF to_regclass(name) IS NULL THEN
                EXECUTE format(
                    'CREATE TABLE %I PARTITION OF request_log FOR VALUES FROM (%L) TO (%L)',
                    name, day::text || ' 00:00:00+00', (day + 1)::text || ' 00:00:00+00');
            END IF;
        END IF;
    END LOOP;
END
$$;

SELECT request_log_add_partitions((now() AT TIME ZONE 'UTC')::date, 3);
