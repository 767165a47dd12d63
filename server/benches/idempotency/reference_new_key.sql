-- pgbench script: the reference for one new-key `POST /v1/orders`, the database's ceiling.
-- FIXED: the minimal two-commit pattern, on the fixed tables of reference_schema.sql. It is
-- not redefined when the engine changes, so "new-key throughput / this" measures the engine.
--   1. the API-key lookup;
--   2. the claim, `INSERT ... ON CONFLICT DO NOTHING`, committed alone (the record says
--      in_progress before the effect starts);
--   3. BEGIN; the order INSERT; the completing UPDATE storing the response; COMMIT.
-- Run with -M prepared and -D api_key_hash=<hex> -D merchant=<id> -D request_hash=<hex>.
\set r random(1, 9000000000000000)
SELECT id FROM reference.merchants WHERE api_key_hash = decode(:api_key_hash, 'hex');
INSERT INTO reference.idempotency_keys
  (merchant_id, key, endpoint, request_hash, status, lease_token, locked_until, expires_at)
VALUES (:merchant, 'pgb-' || :client_id::text || '-' || :r::text, 'POST /v1/orders',
  decode(:request_hash, 'hex'), 'in_progress', gen_random_uuid(),
  now() + make_interval(secs => 60), now() + make_interval(secs => 86400))
ON CONFLICT (merchant_id, key) DO NOTHING;
BEGIN;
INSERT INTO reference.orders (id, merchant_id, amount, currency, status, description, metadata)
VALUES ('ord_pgb' || :client_id::text || 'x' || :r::text, :merchant, 1000, 'EUR', 'pending',
  'benchmark order', '{}')
RETURNING id, 'order' AS object, amount, currency, status, description, metadata, created_at, updated_at;
UPDATE reference.idempotency_keys SET status = 'completed', recovery_point = 'finished',
  response_status = 201, response_location = '/v1/orders/ord_pgb' || :client_id::text || 'x' || :r::text,
  response_body = convert_to(repeat('x', 230), 'UTF8'),
  resource_type = coalesce('order', resource_type),
  resource_id = coalesce('ord_pgb' || :client_id::text || 'x' || :r::text, resource_id),
  locked_until = NULL, updated_at = now()
WHERE merchant_id = :merchant AND key = 'pgb-' || :client_id::text || '-' || :r::text
  AND status = 'in_progress';
COMMIT;
