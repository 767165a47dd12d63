-- Reconciliation that runs beside itself safely:
-- * each reversal is claimed (with a token and a lease) before the partner is called, and the
--   call's outcome recorded, so two runs never both call and a crashed claimer is taken over;
-- * a run finishes `completed`, or `partial` when a reversal was refused (recorded on its item,
--   retried by the next run);
-- * the daily job of each day is claimed by one replica (scheduled_runs).

ALTER TABLE partner_reversals
    ADD COLUMN state TEXT NOT NULL DEFAULT 'claimed' CHECK (state IN ('claimed', 'reversed', 'refused')),
    ADD COLUMN claim_token UUID,
    ADD COLUMN claimed_until TIMESTAMPTZ,
    ADD COLUMN attempts INT NOT NULL DEFAULT 1,
    ADD COLUMN last_error TEXT;
UPDATE partner_reversals SET state = 'reversed' WHERE reversed_at IS NOT NULL;

ALTER TABLE reconciliation_runs
    ADD COLUMN status TEXT NOT NULL DEFAULT 'completed' CHECK (status IN ('running', 'completed', 'partial'));

-- For a duplicate whose reversal was refused: the partner's code.
ALTER TABLE reconciliation_items ADD COLUMN detail TEXT;

CREATE TABLE scheduled_runs (
    job           TEXT NOT NULL,
    run_date      DATE NOT NULL,
    claim_token   UUID NOT NULL,
    claimed_until TIMESTAMPTZ NOT NULL,
    finished_at   TIMESTAMPTZ,
    PRIMARY KEY (job, run_date)
);
