-- Every process caches API-key lookups for a few seconds (server/src/auth/cache.rs). Revoking a
-- key, by changing its merchant's api_key_hash or deleting the merchant in any way, announces
-- the old hash (hex) on the kaadxpay_api_key_revoked channel, so that every process forgets it
-- at once. The notification is sent when the revoking transaction commits.
CREATE FUNCTION notify_api_key_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('kaadxpay_api_key_revoked', encode(OLD.api_key_hash, 'hex'));
    RETURN NULL;
END
$$;

CREATE TRIGGER merchants_api_key_revoked
    AFTER UPDATE OF api_key_hash OR DELETE ON merchants
    FOR EACH ROW EXECUTE FUNCTION notify_api_key_revoked();
