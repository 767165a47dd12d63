-- Who may move money (issue 27, API.md §11).

-- A key acts for its maker: the member accountable for it (kept also for a key an owner made
-- "for the merchant", which four eyes still count as that owner's), whether its powers are that
-- member's role at each use (`acts_for_maker`), the key that made it through the API, and the key
-- it was rolled from. Revoking a key revokes what it made or was rolled into, transitively.
-- `created_by_user` has no foreign key: a removed member's row is deleted, and the keys that
-- acted for it stop working with it (their join finds no member).
ALTER TABLE api_keys
    ADD COLUMN created_by_user TEXT,
    ADD COLUMN created_by_email TEXT,
    ADD COLUMN acts_for_maker BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN created_by_key TEXT REFERENCES api_keys (id),
    ADD COLUMN rolled_from TEXT REFERENCES api_keys (id),
    ADD CONSTRAINT api_keys_maker_known CHECK (NOT acts_for_maker OR created_by_email IS NOT NULL);
CREATE INDEX api_keys_by_maker ON api_keys (created_by_user) WHERE created_by_user IS NOT NULL;
CREATE INDEX api_keys_made_by_key ON api_keys (created_by_key) WHERE created_by_key IS NOT NULL;
CREATE INDEX api_keys_rolled_from ON api_keys (rolled_from) WHERE rolled_from IS NOT NULL;

-- The keys of before learn their makers from the audit log, oldest first (a roll's successor
-- takes its key's maker). A key made by a member who has since been removed acted for that
-- member, and stops working now, as removing a member does from now on.
DO $$
DECLARE
    entry RECORD;
    maker RECORD;
BEGIN
    FOR entry IN
        SELECT merchant_id, actor_kind, actor, action, object_id, after
        FROM audit_log WHERE action IN ('api_key.created', 'api_key.rolled')
        ORDER BY created_at, id
    LOOP
        IF entry.actor_kind = 'user' THEN
            SELECT id AS user_id, entry.actor AS email, true AS acts INTO maker
            FROM (SELECT 1) one
            LEFT JOIN users ON users.merchant_id = entry.merchant_id AND users.email = entry.actor;
        ELSE
            SELECT created_by_user AS user_id, created_by_email AS email, acts_for_maker AS acts
            INTO maker FROM api_keys WHERE id = entry.actor;
        END IF;
        IF entry.action = 'api_key.created' THEN
            UPDATE api_keys SET created_by_user = maker.user_id, created_by_email = maker.email,
                acts_for_maker = coalesce(maker.acts, false),
                created_by_key = CASE WHEN entry.actor_kind = 'api_key' THEN entry.actor END
            WHERE id = entry.object_id;
        ELSE
            UPDATE api_keys AS successor SET created_by_user = rolled.created_by_user,
                created_by_email = rolled.created_by_email, acts_for_maker = rolled.acts_for_maker,
                rolled_from = rolled.id,
                created_by_key = CASE WHEN entry.actor_kind = 'api_key' THEN entry.actor END
            FROM api_keys AS rolled
            WHERE rolled.id = entry.object_id AND successor.id = entry.after -> 'successor' ->> 'id';
        END IF;
    END LOOP;
END
$$;
UPDATE api_keys SET expires_at = least(coalesce(expires_at, 'infinity'), now())
WHERE acts_for_maker AND NOT EXISTS (
    SELECT 1 FROM users WHERE users.id = api_keys.created_by_user
      AND users.merchant_id = api_keys.merchant_id);

-- A member's role bounds the keys that act for it at each use: a change of role (or a removal)
-- announces their hashes on the revocation channel, so every process looks them up again.
CREATE FUNCTION notify_maker_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('kaadxpay_api_key_revoked', encode(key_hash, 'hex'))
    FROM api_keys WHERE created_by_user = OLD.id AND acts_for_maker;
    RETURN NULL;
END
$$;
CREATE TRIGGER users_role_bounds_keys
    AFTER UPDATE OF role OR DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION notify_maker_changed();

-- Four eyes are two people: the member a payout counts as made by (its creator, or the maker of
-- the key that made it), by email; NULL for a payout of a key made by `merchants create`.
ALTER TABLE payouts ADD COLUMN accountable TEXT;
UPDATE payouts SET accountable = created_by WHERE created_by_kind = 'user';
UPDATE payouts SET accountable = api_keys.created_by_email
FROM api_keys WHERE payouts.created_by_kind = 'api_key' AND api_keys.id = payouts.created_by;

-- The creator of a payout awaiting approval may cancel it (its reservation released).
ALTER TABLE payouts DROP CONSTRAINT payouts_status_check;
ALTER TABLE payouts ADD CONSTRAINT payouts_status_check CHECK (status IN (
    'pending_approval', 'rejected', 'cancelled', 'pending', 'in_transit', 'paid', 'failed',
    'reversed'));
ALTER TABLE payouts DROP CONSTRAINT payouts_awaiting_needs_approval;
ALTER TABLE payouts ADD CONSTRAINT payouts_awaiting_needs_approval CHECK (
    status NOT IN ('pending_approval', 'rejected', 'cancelled') OR approval_required);
ALTER TYPE idempotency_endpoint ADD VALUE 'POST /v1/payouts/{id}/cancel';

-- Payouts to one account in one currency within a day count together against the threshold.
CREATE INDEX payouts_by_destination ON payouts (
    merchant_id, currency, upper(replace(destination ->> 'iban', ' ', '')), created_at);

-- Invitations can be revoked (and stop working when their inviter can no longer invite).
ALTER TABLE invitations ADD COLUMN revoked_at TIMESTAMPTZ;
