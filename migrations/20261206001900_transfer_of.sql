-- Names that say what they hold (issue 28 item 5): since refunds take the payouts' path to the
-- partner (20261206000800_refunds.sql), the partner's events, the reversals of duplicates, the
-- partner calls and reconciliation's items name the payout OR the refund (`po_…` or `re_…`)
-- whose transfer they concern, in a column that was still called `payout_id`. It is
-- `transfer_of` now, and holds nothing else: the id of a payout or of a refund, by its prefix
-- (the server reads it as `TransferOf`). The API's reconciliation item keeps its wire name
-- `payout_id` (API.md), as does the export's column.
--
-- Renames and checks in one transaction: catalogue changes, quick under their locks, for the
-- chaos test and the HA deploy, which migrate a live cluster.

ALTER TABLE partner_events RENAME COLUMN payout_id TO transfer_of;
ALTER TABLE partner_reversals RENAME COLUMN payout_id TO transfer_of;
ALTER TABLE partner_calls RENAME COLUMN payout_id TO transfer_of;
ALTER TABLE reconciliation_items RENAME COLUMN payout_id TO transfer_of;
ALTER INDEX partner_calls_payout_idx RENAME TO partner_calls_transfer_of_idx;

ALTER TABLE partner_events
    ADD CONSTRAINT partner_events_transfer_of_kind CHECK (transfer_of ~ '^(po|re)_');
ALTER TABLE partner_reversals
    ADD CONSTRAINT partner_reversals_transfer_of_kind CHECK (transfer_of ~ '^(po|re)_');
ALTER TABLE partner_calls
    ADD CONSTRAINT partner_calls_transfer_of_kind CHECK (transfer_of ~ '^(po|re)_');
ALTER TABLE reconciliation_items
    ADD CONSTRAINT reconciliation_items_transfer_of_kind CHECK (transfer_of ~ '^(po|re)_');

COMMENT ON COLUMN partner_events.transfer_of IS
    'The payout (po_) or refund (re_) whose transfer the event concerns; NULL when none.';
COMMENT ON COLUMN partner_reversals.transfer_of IS
    'The payout (po_) or refund (re_) the duplicate transfer was made for.';
COMMENT ON COLUMN partner_calls.transfer_of IS
    'The payout (po_) or refund (re_) whose transfer the call concerns.';
COMMENT ON COLUMN reconciliation_items.transfer_of IS
    'The payout (po_) or refund (re_) the item''s transfer was made for; NULL for a transfer we never asked for.';
