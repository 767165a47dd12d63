-- The console's repeat guard claims a form's key before its submit runs (server/src/console/
-- repeats.rs): `made` is NULL while that submit is under way, and another submit of the same
-- key waits for it, so that one rendered form makes one effect even where no API key guards it
-- ("Simulate incoming transfer").
ALTER TABLE console_submits ALTER COLUMN made DROP NOT NULL;

-- What a console submit keeps for the page it leads to (server/src/console/notes.rs): the form
-- as typed, the notice of what was done, a one-time secret (sealed), each in a row of its own by
-- session (a hash of its CSRF token) and slot, so that two requests of one session at the same
-- moment cannot drop each other's, as they did inside the session's record, which each request
-- writes back whole. Taken (deleted) by the page that shows it; left over ones go after a day.
CREATE TABLE console_notes (
    owner      BYTEA NOT NULL,
    slot       TEXT NOT NULL,
    value      JSONB NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (owner, slot)
);

CREATE INDEX console_notes_created_at ON console_notes (created_at);
