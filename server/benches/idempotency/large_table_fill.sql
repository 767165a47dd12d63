-- Pre-fills `idempotency_keys` for the large-table part of the benchmark (BENCH_LARGE=1): records
-- $1 ..= $2 of $3, generated in SQL, one batch per execution (large.rs runs it batch after
-- batch). Written against the table's columns as the migrations have them; when they change,
-- this is the one place to change.
--
-- The records are a day of a busy platform and one hour more: record n was made
-- (($3 - n) / $3) * 25 hours ago and expires a TTL of 24 hours after it was made, so the oldest twenty-
-- fifth of them (one hour of the daily volume) has expired and awaits the purge. They belong to
-- 1,000 merchants (`mer_fill0000` ..= `mer_fill0999`, made here when missing), a few large and
-- many small; keys are random UUIDs, as clients make them, so each lands on a random leaf of the
-- primary key. 90 % are orders and 10 % payouts; 2 % are refusals stored with their bytes, the
-- rest `201`s stored as a reference to the resource they made (no location, no body), as the
-- one-commit path records them.
WITH merchants AS (
  INSERT INTO merchants (id, name)
  SELECT 'mer_fill' || lpad(m::text, 4, '0'), 'Fill merchant ' || m
  FROM generate_series(0, 999) m
  ON CONFLICT DO NOTHING),
records AS (
  SELECT n, now() - make_interval(secs => ($3 - n + random()) / $3 * 90000) AS made,
    n % 10 = 0 AS payout, n % 50 = 7 AS refused
  FROM generate_series($1::bigint, $2::bigint) n)
INSERT INTO idempotency_keys (merchant_id, key, endpoint, request_hash, status, response_status,
  response_body, resource_type, resource_id, created_at)
SELECT 'mer_fill' || lpad(floor(1000 * power(random(), 3))::int::text, 4, '0'),
  gen_random_uuid()::text,
  CASE WHEN payout THEN 'POST /v1/payouts' ELSE 'POST /v1/orders' END::idempotency_endpoint,
  sha256(convert_to(n::text, 'UTF8')),
  'completed',
  CASE WHEN refused THEN 422 ELSE 201 END,
  CASE WHEN refused THEN convert_to('{"error":{"type":"invalid_request","code":"amount_too_large",'
    || '"message":"The amount exceeds the largest this account accepts.","param":"amount"}}', 'UTF8') END,
  CASE WHEN refused THEN NULL WHEN payout THEN 'payout' ELSE 'order' END,
  CASE WHEN refused THEN NULL
    ELSE CASE WHEN payout THEN 'po_' ELSE 'ord_' END || substr(md5(random()::text), 1, 24) END,
  made
FROM records
