-- The audit log's per-merchant hash chain (issue 27 item 6, API.md §11): each entry carries
-- `seq`, its place in its merchant's chain (1, 2, …), and `hash`, the SHA-256 of the previous
-- entry's hash followed by the entry's content:
--
--     hash = sha256(previous hash || audit_log_content(entry, seq))
--
-- where the previous hash of a chain's first entry is 32 zero bytes, and the content is the
-- UTF-8 text of a JSON array (PostgreSQL's jsonb text form: canonical for its value) of, in
-- order: merchant_id, seq, id, created_at in microseconds since the Unix epoch, actor_kind,
-- actor, action, object_type, object_id, host(client_address) (or null), before, after.
-- `kaadxpay audit verify` walks each chain and names the first entry changed, removed or
-- inserted.
--
-- Inserts are serialised per merchant by the chain's head row in audit_chains, which the
-- trigger that chains the entry updates (one statement: the row's lock, the next place and the
-- new hash), holding it until the inserting transaction ends. The trigger
-- and the purge run as the owner of the tables (SECURITY DEFINER): the role the server's
-- requests use needs no right on audit_chains, and only INSERT and SELECT on audit_log
-- (deploy/roles.sql).

CREATE TABLE audit_chains (
    merchant_id TEXT PRIMARY KEY REFERENCES merchants (id),
    -- The last entry's place and hash (0 and zeros before the first).
    seq         BIGINT NOT NULL DEFAULT 0,
    hash        BYTEA NOT NULL DEFAULT decode(repeat('00', 32), 'hex'),
    -- The chain's start: the first entry kept, and the hash before it (the last purged
    -- entry's; zeros while nothing was purged). Only the purge moves it.
    start_seq   BIGINT NOT NULL DEFAULT 1,
    start_hash  BYTEA NOT NULL DEFAULT decode(repeat('00', 32), 'hex')
);

ALTER TABLE audit_log ADD COLUMN seq BIGINT, ADD COLUMN hash BYTEA;

-- The content an entry's hash covers (see above), the entry at place `place` of its chain.
CREATE FUNCTION audit_log_content(entry audit_log, place bigint) RETURNS bytea
LANGUAGE sql STABLE AS $$
    SELECT convert_to(jsonb_build_array(
        entry.merchant_id, place, entry.id,
        (extract(epoch FROM entry.created_at) * 1000000)::bigint,
        entry.actor_kind, entry.actor, entry.action, entry.object_type, entry.object_id,
        host(entry.client_address), entry.before, entry.after)::text, 'UTF8')
$$;

-- The entries written so far, chained in the order they were made.
ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update;
DO $$
DECLARE
    chain record;
    entry record;
    head_seq bigint;
    head_hash bytea;
BEGIN
    FOR chain IN SELECT DISTINCT merchant_id FROM audit_log LOOP
        head_seq := 0;
        head_hash := decode(repeat('00', 32), 'hex');
        FOR entry IN SELECT id FROM audit_log WHERE merchant_id = chain.merchant_id
                     ORDER BY created_at, id LOOP
            head_seq := head_seq + 1;
            UPDATE audit_log a SET seq = head_seq,
                hash = sha256(head_hash || audit_log_content(a, head_seq))
                WHERE id = entry.id RETURNING hash INTO head_hash;
        END LOOP;
        INSERT INTO audit_chains (merchant_id, seq, hash)
            VALUES (chain.merchant_id, head_seq, head_hash);
    END LOOP;
END
$$;
ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_update;

ALTER TABLE audit_log ALTER COLUMN seq SET NOT NULL, ALTER COLUMN hash SET NOT NULL;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_chain_place UNIQUE (merchant_id, seq);

-- Chains each new entry to its merchant's head: moves the head (locking it until the
-- transaction ends) and takes its place and hash; makes the head of a merchant's first entry.
CREATE FUNCTION audit_log_chain() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    LOOP
        UPDATE audit_chains c SET seq = c.seq + 1,
            hash = sha256(c.hash || audit_log_content(NEW, c.seq + 1))
        WHERE merchant_id = NEW.merchant_id RETURNING c.seq, c.hash INTO NEW.seq, NEW.hash;
        EXIT WHEN FOUND;
        INSERT INTO audit_chains (merchant_id) VALUES (NEW.merchant_id)
            ON CONFLICT (merchant_id) DO NOTHING;
    END LOOP;
    RETURN NEW;
END
$$;

CREATE TRIGGER audit_log_chain BEFORE INSERT ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_chain();

-- Deletes, chain by chain, the entries of the whole UTC days that ended `retention` ago or
-- earlier (never less than 365 days), as a prefix of the chain: an older entry placed after a
-- younger one stays until the younger goes. Moves each chain's start past what it deleted.
-- Returns how many entries it deleted.
CREATE FUNCTION audit_log_purge(retention interval) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    cutoff timestamptz := date_trunc('day', now() - retention, 'UTC');
    chain record;
    last_seq bigint;
    last_hash bytea;
    deleted bigint;
    purged bigint := 0;
BEGIN
    IF retention < interval '365 days' THEN
        RAISE EXCEPTION 'the audit log is kept at least 365 days, not %', retention
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    FOR chain IN SELECT DISTINCT merchant_id FROM audit_log WHERE created_at < cutoff LOOP
        PERFORM 1 FROM audit_chains WHERE merchant_id = chain.merchant_id FOR UPDATE;
        SELECT max(seq) INTO last_seq FROM audit_log
            WHERE merchant_id = chain.merchant_id AND created_at < cutoff;
        SELECT coalesce(min(seq) - 1, last_seq) INTO last_seq FROM audit_log
            WHERE merchant_id = chain.merchant_id AND seq <= last_seq AND created_at >= cutoff;
        SELECT hash INTO last_hash FROM audit_log
            WHERE merchant_id = chain.merchant_id AND seq = last_seq;
        CONTINUE WHEN last_hash IS NULL;
        DELETE FROM audit_log WHERE merchant_id = chain.merchant_id AND seq <= last_seq;
        GET DIAGNOSTICS deleted = ROW_COUNT;
        purged := purged + deleted;
        UPDATE audit_chains SET start_seq = last_seq + 1, start_hash = last_hash
            WHERE merchant_id = chain.merchant_id;
    END LOOP;
    RETURN purged;
END
$$;

-- Functions that run as their owner resolve names in this schema only (never in pg_temp).
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION audit_log_chain() SET search_path = %I, pg_temp',
                   current_schema());
    EXECUTE format('ALTER FUNCTION audit_log_purge(interval) SET search_path = %I, pg_temp',
                   current_schema());
END
$$;
