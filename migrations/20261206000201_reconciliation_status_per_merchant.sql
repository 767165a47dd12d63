-- A reconciliation run's status from its items (issue 27 item 7, API.md §11): `attention` with a
-- `status_mismatch`, else `partial` with an unfinished reversal of a duplicate, else
-- `completed`. With a merchant, from that merchant's items only: what the merchant is shown,
-- so that no merchant learns of another's mismatches or reversals. Without one (NULL), from
-- every item: what the run stores and support staff see.
CREATE FUNCTION reconciliation_run_status(run text, merchant text) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT CASE
        WHEN EXISTS (SELECT 1 FROM reconciliation_items
                     WHERE run_id = run AND (merchant IS NULL OR merchant_id = merchant)
                       AND kind = 'status_mismatch') THEN 'attention'
        WHEN EXISTS (SELECT 1 FROM reconciliation_items
                     WHERE run_id = run AND (merchant IS NULL OR merchant_id = merchant)
                       AND kind = 'duplicate' AND action IN ('refused', 'failed', 'in_progress'))
            THEN 'partial'
        ELSE 'completed' END
$$;
