-- "Run reconciliation now" (the console: support staff, and anyone in test mode): the key of
-- the request that made a run, written when the run finishes, so a repeat of that request (a
-- double click, a resubmitted form) answers the run it made instead of running again.
ALTER TABLE reconciliation_runs ADD COLUMN request_key TEXT UNIQUE;
