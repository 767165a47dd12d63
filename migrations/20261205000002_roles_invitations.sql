-- Team members and roles (issue 19, API.md §11): every merchant user has one of five roles;
-- the users of before become owners. Support staff keep their own role, across merchants.
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users DROP CONSTRAINT users_check;
UPDATE users SET role = 'owner' WHERE role = 'merchant';
ALTER TABLE users ADD CONSTRAINT users_role_check
    CHECK (role IN ('owner', 'admin', 'developer', 'finance', 'viewer', 'support'));
ALTER TABLE users ADD CONSTRAINT users_support_has_no_merchant
    CHECK ((role = 'support') = (merchant_id IS NULL));

-- An invitation: a single-use link that expires. Only the token's SHA-256 is kept.
CREATE TABLE invitations (
    id          TEXT PRIMARY KEY,
    token_hash  BYTEA NOT NULL UNIQUE,
    merchant_id TEXT NOT NULL REFERENCES merchants (id),
    email       TEXT NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'finance', 'viewer')),
    invited_by  TEXT NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL,
    accepted_at TIMESTAMPTZ,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX invitations_merchant_idx ON invitations (merchant_id, created_at DESC);
