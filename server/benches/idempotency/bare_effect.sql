-- pgbench script: the bare effect of one new-key `POST /v1/orders`, the second reference.
-- FIXED: the order, its `order.created` event and a pending delivery to each of the merchant's
-- live subscribed endpoints, in one statement and one commit, with no idempotency at all (no key,
-- no record, no lock), on the fixed tables of bare_effect_schema.sql. What the engine adds to
-- the effect is "new-key throughput / this". The benchmark's merchants have no endpoint, so
-- neither this nor the server makes a delivery.
-- Run with -M prepared and -D merchant=<id>.
\set r random(1, 9000000000000000)
WITH ids AS (
  SELECT 'ord_bare' || :client_id::text || 'x' || :r::text AS order_id,
    gen_random_uuid() AS event_id, now() AS at),
new_order AS (
  INSERT INTO reference.bare_orders (id, merchant_id, amount, currency, status, description,
    metadata, created_at, updated_at)
  SELECT order_id, :merchant, 1000, 'EUR', 'pending', 'benchmark order', '{}', at, at FROM ids
  RETURNING id, merchant_id, amount, currency, status, description, metadata, created_at,
    updated_at),
new_event AS (
  INSERT INTO reference.bare_events (id, merchant_id, event_type, payload, created_at)
  SELECT ids.event_id, o.merchant_id, 'order.created', jsonb_build_object(
      'event_id', ids.event_id, 'event_type', 'order.created', 'created_at', ids.at,
      'data', jsonb_build_object('object', jsonb_build_object('id', o.id, 'object', 'order',
        'amount', o.amount, 'currency', o.currency, 'status', o.status,
        'description', o.description, 'metadata', o.metadata, 'created_at', o.created_at,
        'updated_at', o.updated_at))),
    ids.at
  FROM ids, new_order o
  RETURNING id, merchant_id, event_type),
new_deliveries AS (
  INSERT INTO reference.bare_webhook_deliveries (id, merchant_id, event_id, endpoint_id, status)
  SELECT gen_random_uuid(), w.merchant_id, e.id, w.id, 'pending'
  FROM new_event e JOIN reference.bare_webhook_endpoints w ON w.merchant_id = e.merchant_id
  WHERE w.disabled_at IS NULL AND w.deleted_at IS NULL
    AND ('*' = ANY (w.events) OR e.event_type = ANY (w.events))
  RETURNING 1)
SELECT id, 'order' AS object, amount, currency, status, description, metadata, created_at,
  updated_at
FROM new_order;
