-- A duplicate transfer that reconciliation reversed leaves its payout `paid`; the payout shows
-- how many of its duplicates were reversed (API.md §4).
ALTER TABLE payouts ADD COLUMN duplicates_reversed INT NOT NULL DEFAULT 0;
