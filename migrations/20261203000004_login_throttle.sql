-- Sign-in throttling per account and per client address: every attempt is recorded (as a
-- failure until it succeeds) before its password is checked.
ALTER TABLE login_failures ADD COLUMN id BIGSERIAL PRIMARY KEY,
                           ADD COLUMN client_addr TEXT;
CREATE INDEX login_failures_client_idx ON login_failures (client_addr, failed_at);
