-- "Run reconciliation now" keys are a merchant's own, like every other key (issue 28 item 6):
-- a run remembers whom its request was for (NULL: support staff), and the key is unique per
-- requester, not across merchants, so that one merchant's key never answers another's run
-- nor refuses another's request. Runs already made for a member are found by their audit entry.
ALTER TABLE reconciliation_runs ADD COLUMN requested_for TEXT REFERENCES merchants (id);
UPDATE reconciliation_runs r SET requested_for = a.merchant_id
    FROM audit_log a
    WHERE a.action = 'reconciliation.run_started' AND a.object_id = r.id
      AND r.request_key IS NOT NULL;
ALTER TABLE reconciliation_runs DROP CONSTRAINT reconciliation_runs_request_key_key;
CREATE UNIQUE INDEX reconciliation_runs_request_key ON reconciliation_runs (requested_for, request_key)
    NULLS NOT DISTINCT WHERE request_key IS NOT NULL;
