-- Two-step sign-in (issue 19 item 2, API.md §11): a TOTP secret per console user (RFC 6238:
-- 6 digits, 30 s, SHA-1), stored sealed with XChaCha20-Poly1305 under KAADXPAY_SECRETS_KEY
-- (the 24-byte nonce, then the ciphertext and its tag; the user's id is the associated data, so
-- a sealed secret moved to another user's row does not open). A row without `confirmed_at` is
-- an enrolment begun and not yet confirmed with a code: its secret is still shown to its user,
-- and it does not count as two-step sign-in.
CREATE TABLE two_factor (
    user_id       TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    secret_sealed BYTEA NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    confirmed_at  TIMESTAMPTZ,
    -- The time step (unix seconds / 30) of the last code accepted: a code of this step or an
    -- earlier one is refused, so a code works once (replay protection), whichever replica
    -- checks it (a conditional UPDATE).
    last_step     BIGINT
);

-- Ten single-use recovery codes per user, shown once at enrolment; only their SHA-256 is kept
-- (they are random, like API keys). A code is consumed by a conditional UPDATE of `used_at`.
CREATE TABLE two_factor_recovery_codes (
    user_id   TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash BYTEA NOT NULL,
    used_at   TIMESTAMPTZ,
    PRIMARY KEY (user_id, code_hash)
);

-- An owner (or admin) may require two-step sign-in of every member: a member without it may
-- then only enrol once signed in.
ALTER TABLE merchants ADD COLUMN require_two_factor BOOLEAN NOT NULL DEFAULT false;

-- An operator at the command line is an author too: `kaadxpay users reset-two-factor` records
-- `two_factor.reset` by the operator's login name.
ALTER TABLE audit_log DROP CONSTRAINT audit_log_actor_kind_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_actor_kind_check
    CHECK (actor_kind IN ('user', 'api_key', 'support', 'operator'));
