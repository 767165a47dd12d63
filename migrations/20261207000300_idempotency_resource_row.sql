-- The resource a completed record names, read for its replay from the database in the key's
-- own statement (issue 32). It was a scalar subquery in the statement, and PostgreSQL
-- initialises every node of a statement's plan on every execution, whether it runs or not: the
-- subquery's index scan cost a new key, whose statement finds no record, 42,000 of its 822,000
-- instructions (callgrind, README). A function call costs its execution only when it is made:
-- once per replay from the database, none for a new key.
--
-- `columns` is the select list the command renders its `201` from, a constant of the server's
-- code; the function runs with its caller's rights (no SECURITY DEFINER), so it lets no one
-- read what they could not read already.
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
