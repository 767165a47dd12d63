-- pgbench script: the SQL the idempotency engine runs for one new-key `POST /v1/orders`
-- (server/src/auth.rs, idempotency/engine.rs, payments/orders.rs), the database's ceiling.
-- Run with -M prepared (sqlx prepares its statements too) and
-- -D api_key_hash=<hex> -D merchant=<mer_...> -D request_hash=<hex>.
\set r random(1, 9000000000000000)
-- the API-key lookup (auth.rs)
SELECT id FROM merchants WHERE api_key_hash = decode(:api_key_hash, 'hex');
-- the claim, committed alone (engine.rs, Idempotency::claim)
INSERT INTO idempotency_keys
  (merchant_id, key, endpoint, request_hash, status, lease_token, locked_until, expires_at)
VALUES (:merchant, 'pgb-' || :client_id::text || '-' || :r::text, 'POST /v1/orders',
  decode(:request_hash, 'hex'), 'in_progress', gen_random_uuid(),
  now() + make_interval(secs => 60), now() + make_interval(secs => 86400))
ON CONFLICT (merchant_id, key) DO NOTHING;
-- the effect and the completion, in one transaction (http/orders.rs, ClaimedKey::complete)
BEGIN;
INSERT INTO orders (id, merchant_id, amount, currency, status, description, metadata)
VALUES ('ord_pgb' || :client_id::text || 'x' || :r::text, :merchant, 1000, 'EUR', 'pending',
  'benchmark order', '{}')
RETURNING id, 'order' AS object, amount, currency, status, description, metadata, created_at, updated_at;
UPDATE idempotency_keys SET status = 'completed', recovery_point = 'finished',
  response_status = 201, response_location = '/v1/orders/ord_pgb' || :client_id::text || 'x' || :r::text,
  response_body = convert_to(repeat('x', 230), 'UTF8'),
  resource_type = coalesce('order', resource_type),
  resource_id = coalesce('ord_pgb' || :client_id::text || 'x' || :r::text, resource_id),
  locked_until = NULL, updated_at = now()
WHERE merchant_id = :merchant AND key = 'pgb-' || :client_id::text || '-' || :r::text
  AND status = 'in_progress';
COMMIT;
