-- A movement is posted once per cause: one journal of a kind for one source object. `ledger
-- verify` cannot see a movement posted twice (the copy balances too); this makes it impossible.
CREATE UNIQUE INDEX ledger_journals_once_per_cause
    ON ledger_journals (kind, source_type, source_id)
    WHERE source_id IS NOT NULL;
