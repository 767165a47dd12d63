-- A merchant's API keys (API.md §11): several per merchant, named, each `read_only` or
-- `read_write`, with a visible prefix (the secret's first 12 characters) for recognition; only
-- the SHA-256 of the secret is stored. A key stops working at its `expires_at`, which a roll
-- with an overlap sets in the future and a revocation sets to now.
CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    merchant_id  TEXT NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    key_hash     BYTEA NOT NULL UNIQUE,
    prefix       TEXT NOT NULL,
    access       TEXT NOT NULL CHECK (access IN ('read_only', 'read_write')),
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_used_at TIMESTAMPTZ,
    expires_at   TIMESTAMPTZ
);

CREATE INDEX api_keys_by_merchant ON api_keys (merchant_id, created_at DESC, id DESC);

-- Each merchant's single key becomes its first key, read-write, so that it keeps working. Its
-- secret was never stored, so its prefix is only what every secret starts with until the key is
-- next used (server/src/auth/usage.rs records the rest).
DROP TRIGGER merchants_api_key_revoked ON merchants;

INSERT INTO api_keys (id, merchant_id, name, key_hash, prefix, access, created_at)
SELECT 'key_' || substr(translate(encode(sha256(convert_to(gen_random_uuid()::text, 'UTF8')), 'base64'), '+/=', ''), 1, 24),
       id, 'Default', api_key_hash, 'sk_test_', 'read_write', created_at
FROM merchants;

ALTER TABLE merchants DROP COLUMN api_key_hash;

-- Revoking a key, by setting its expiry (a roll or a revocation), changing its hash or deleting
-- it (or its merchant), announces the old hash (hex) on the kaadxpay_api_key_revoked channel
-- when the transaction commits, so that every process forgets its cached lookup at once
-- (server/src/auth/cache.rs). An expiry in the future is announced too: a lookup cached after it
-- is trusted until that expiry at most.
CREATE OR REPLACE FUNCTION notify_api_key_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('kaadxpay_api_key_revoked', encode(OLD.key_hash, 'hex'));
    RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_revoked
    AFTER UPDATE OF key_hash, expires_at OR DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION notify_api_key_revoked();
