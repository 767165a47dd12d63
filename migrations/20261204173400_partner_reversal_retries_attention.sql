-- Reconciliation that needs a person, and reversals retried whatever their day (issue 15):
-- * an item `status_mismatch`: a payout whose status contradicts its own transfer at the partner;
-- * a run `attention` when it found one (before `partial`, which resolves itself);
-- * an unfinished reversal (`refused`, or a claim whose claimer died) is due again at
--   `next_attempt_at`, with back-off, until it is `reversed` or a person marks it `resolved`.

ALTER TABLE reconciliation_items DROP CONSTRAINT reconciliation_items_kind_check;
ALTER TABLE reconciliation_items ADD CONSTRAINT reconciliation_items_kind_check
    CHECK (kind IN ('matched', 'duplicate', 'missing', 'unknown', 'amount_mismatch', 'status_mismatch'));

ALTER TABLE reconciliation_runs DROP CONSTRAINT reconciliation_runs_status_check;
ALTER TABLE reconciliation_runs ADD CONSTRAINT reconciliation_runs_status_check
    CHECK (status IN ('running', 'completed', 'partial', 'attention'));

ALTER TABLE partner_reversals DROP CONSTRAINT partner_reversals_state_check;
ALTER TABLE partner_reversals ADD CONSTRAINT partner_reversals_state_check
    CHECK (state IN ('claimed', 'reversed', 'refused', 'resolved'));
ALTER TABLE partner_reversals ADD COLUMN next_attempt_at TIMESTAMPTZ;
UPDATE partner_reversals SET next_attempt_at = now() WHERE state = 'refused';
CREATE INDEX partner_reversals_unfinished_idx ON partner_reversals (next_attempt_at)
    WHERE state IN ('claimed', 'refused');
