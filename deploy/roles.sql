-- The role `kaadxpay serve` connects as (DATABASE_URL) in a hardened deployment: it may read and
-- write what the service's requests and workers need, but it may only INSERT and SELECT audit
-- entries. The migrations run as the role that owns the tables (KAADXPAY_MIGRATE_DATABASE_URL,
-- the database's owner or a superuser) and so does this script, after `kaadxpay migrate`, in
-- the service's database; it may run again after every migration (it changes nothing twice):
--
--     kaadxpay migrate                     # as the owner (KAADXPAY_MIGRATE_DATABASE_URL)
--     psql "$KAADXPAY_MIGRATE_DATABASE_URL" -v ON_ERROR_STOP=1 -f deploy/roles.sql
--     psql "$KAADXPAY_MIGRATE_DATABASE_URL" -c "ALTER ROLE kaadxpay_app PASSWORD '…'"
--
-- What stops the server's role from rewriting history (docs/operations.md, "Audit log"; the
-- ledger's journals, entries and statement likewise: appended and read only):
-- - no UPDATE, DELETE or TRUNCATE on audit_log and no right at all on audit_chains: the
--   entries' chaining and the retention purge run as the owner (SECURITY DEFINER functions
--   audit_log_chain and audit_log_purge, the latter deleting only whole days past retention);
-- - it is not a superuser and not the owner, so triggers bind it and it cannot set
--   `session_replication_role` (a superuser's setting) to skip them.

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'kaadxpay_app') THEN
        CREATE ROLE kaadxpay_app LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS;
    END IF;
    -- The console's sessions live in the schema tower_sessions, which `serve` makes if missing.
    EXECUTE format('GRANT CONNECT, CREATE ON DATABASE %I TO kaadxpay_app', current_database());
END
$$;

-- CREATE: for the request log's daily partitions (below).
GRANT USAGE, CREATE ON SCHEMA public TO kaadxpay_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO kaadxpay_app;
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO kaadxpay_app;
-- Tables later migrations make, as the role that runs them.
ALTER DEFAULT PRIVILEGES IN SCHEMA public
    GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO kaadxpay_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public
    GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO kaadxpay_app;

-- The audit log: appended and read, never changed.
REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON audit_log FROM kaadxpay_app;
REVOKE ALL ON audit_chains FROM kaadxpay_app;
GRANT SELECT ON audit_chains TO kaadxpay_app;

-- The ledger: journals, their entries and the statement are written and read, never changed
-- (their triggers refuse it too; a wrong posting is undone by another).
REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER
    ON ledger_journals, ledger_entries, balance_transactions FROM kaadxpay_app;
-- Top-ups likewise: each is credited once and never changed.
REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON top_ups FROM kaadxpay_app;

-- The request log's daily partitions are made and dropped by the server as it runs: it owns
-- the request log (a partition is made and dropped by its parent's owner), and the role running
-- this script is made a member of kaadxpay_app so that later migrations may still change it.
DO $$
DECLARE
    partition regclass;
BEGIN
    -- Which migrations ran is the owner's to write (`/readyz` reads it).
    IF to_regclass('_sqlx_migrations') IS NOT NULL THEN
        REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON _sqlx_migrations FROM kaadxpay_app;
    END IF;
    IF NOT pg_has_role(current_user, 'kaadxpay_app', 'MEMBER') THEN
        EXECUTE format('GRANT kaadxpay_app TO %I', current_user);
    END IF;
    ALTER TABLE request_log OWNER TO kaadxpay_app;
    FOR partition IN SELECT inhrelid::regclass FROM pg_inherits
                     WHERE inhparent = 'request_log'::regclass LOOP
        EXECUTE format('ALTER TABLE %s OWNER TO kaadxpay_app', partition);
    END LOOP;
END
$$;
