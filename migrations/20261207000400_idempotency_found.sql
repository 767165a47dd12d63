-- The key's record as a statement of the engine finds it (issue 32): one anonymous record, its
-- fields in the order the engine decodes them (`FoundRecord`, crates/idempotency), the record's
-- age and lease read by the statement's clock, and the row its resource is rendered again from
-- when `resource` names the table (`idempotency_resource_row`). A function, not the same
-- expressions in the statement: PostgreSQL initialises every expression of a statement's plan
-- on each execution, found or not, and a new key's statement finds no record. Its thirteen
-- fields' expressions cost a new key 20,000 of its 572,000 instructions; the call costs its
-- execution only when a record is found.
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
