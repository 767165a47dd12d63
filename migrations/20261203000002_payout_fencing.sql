-- Payout jobs carry a fencing token, as idempotency records do: a new one on every claim, so a
-- worker whose lease ran out (and whose job another worker took) can neither release nor move
-- the job any more. A transfer is the own transfer of one payout at most.
ALTER TABLE payouts ADD COLUMN lease_token UUID;

DROP INDEX payouts_transfer_idx;
ALTER TABLE payouts ADD CONSTRAINT payouts_partner_transfer_id_key UNIQUE (partner_transfer_id);
