-- The audit log (issue 19 item 4, API.md §11): who changed what in a merchant's account, when,
-- from which address, before and after. Written in the transaction of the change it records.
-- Append-only in the database: no row is ever updated, and a row is deleted only once it is a
-- year old (the retention purge, KAADXPAY_AUDIT_RETENTION, at least 365 days).
CREATE TABLE audit_log (
    id             TEXT PRIMARY KEY,
    merchant_id    TEXT NOT NULL REFERENCES merchants (id),
    created_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    actor_kind     TEXT NOT NULL CHECK (actor_kind IN ('user', 'api_key', 'support')),
    -- A user's email, an API key's id (key_…), or support staff's email.
    actor          TEXT NOT NULL,
    -- <object>.<verb>, e.g. member.role_changed.
    action         TEXT NOT NULL CHECK (action ~ '^[a-z_]+\.[a-z_]+$'),
    object_type    TEXT NOT NULL,
    object_id      TEXT NOT NULL,
    client_address INET,
    before         JSONB,
    after          JSONB
);
-- The console's page and the CSV: a merchant's entries, newest first.
CREATE INDEX audit_log_merchant_idx ON audit_log (merchant_id, created_at DESC, id DESC);
-- The retention purge.
CREATE INDEX audit_log_created_idx ON audit_log (created_at);

CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND OLD.created_at < now() - interval '365 days' THEN
        RETURN OLD;
    END IF;
    IF TG_LEVEL = 'STATEMENT' THEN
        RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RAISE EXCEPTION 'audit_log is append-only: % of % refused (a row is deleted only once a year old)',
        TG_OP, OLD.id
        USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_young_delete BEFORE DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
