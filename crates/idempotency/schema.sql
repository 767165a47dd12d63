-- The tables the engine reads and writes, for a database of your own (the Kaadxpay server
-- creates them in its migrations). `idempotency_endpoint` names your keyed endpoints: an enum
-- of their method and route templates (as the server has), or a domain over text. The scope of
-- a key (`merchant_id`) is a merchant's id, or `staff` for keys that are no merchant's
-- (`Scope::Staff`).

CREATE TYPE idempotency_status AS ENUM ('in_progress', 'completed', 'failed');

CREATE TABLE idempotency_keys (
    created_at timestamptz NOT NULL DEFAULT now(),
    locked_until timestamptz,
    lease_token uuid,
    updated_at timestamptz,
    endpoint idempotency_endpoint NOT NULL,
    status idempotency_status NOT NULL,
    attempts integer,
    response_status smallint,
    merchant_id text NOT NULL,
    key text NOT NULL,
    request_hash bytea NOT NULL,
    resource_type text,
    resource_id text,
    recovery_point text,
    error text,
    response_location text,
    response_body bytea,
    PRIMARY KEY (merchant_id, key)
);
-- The purge's: the minute a record was made (its records share the key), read in order.
CREATE INDEX idempotency_keys_created_idx
    ON idempotency_keys (date_bin('1 minute', created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00'));
CREATE INDEX idempotency_keys_lease_idx ON idempotency_keys (locked_until)
    WHERE status = 'in_progress';

CREATE TABLE idempotency_outcomes (
    merchant_id text NOT NULL,
    hour timestamptz NOT NULL,
    outcome text NOT NULL CHECK (outcome IN ('new', 'replayed', 'in_progress', 'mismatch')),
    count bigint NOT NULL,
    PRIMARY KEY (merchant_id, hour, outcome)
);

-- The resource a completed record names, for a replay from the database in the key's own
-- statement (`Once::renders_from`): a function, so that a new key's statement, which finds no
-- record, does not pay for initialising a subquery it never runs.
CREATE FUNCTION idempotency_resource_row(resource regclass, columns text, merchant text, id text)
RETURNS json
LANGUAGE plpgsql STABLE STRICT
AS $$
DECLARE
    found json;
BEGIN
    EXECUTE format('SELECT row_to_json(r) FROM (SELECT %s FROM %s WHERE merchant_id = $1 AND id = $2) r',
        columns, resource)
        INTO found USING merchant, id;
    RETURN found;
END
$$;

-- The key's record as the engine's statements find it (`FoundRecord`): one anonymous record,
-- its fields in the order the engine decodes them, read by the statement's clock, with its
-- resource's row when `resource` names the table. A function, so that a new key's statement,
-- which finds no record, does not initialise the fields' expressions.
CREATE FUNCTION idempotency_found(k idempotency_keys, ttl float8, resource text, columns text)
RETURNS record
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    found record;
BEGIN
    SELECT k.endpoint::text, k.request_hash, k.status::text, k.lease_token,
        coalesce(k.locked_until > now(), false),
        k.created_at + make_interval(secs => ttl) <= now(),
        extract(epoch FROM k.created_at + make_interval(secs => ttl) - now())::float8,
        k.response_status, k.response_location, k.response_body, k.resource_type, k.resource_id,
        CASE WHEN k.response_body IS NULL AND resource IS NOT NULL
            THEN idempotency_resource_row(resource::regclass, columns, k.merchant_id, k.resource_id)
        END
    INTO found;
    RETURN found;
END
$$;
