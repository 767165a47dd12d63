#!/usr/bin/env bash
# Instruction profile of the new-key path: the release `kaadxpay serve` under callgrind, driven
# with N `POST /v1/orders` (each a fresh Idempotency-Key, the benchmark's body) by curl on
# keep-alive connections, P at a time. Callgrind counts instructions, so the figures do not
# depend on the machine's load; only the requests are counted (instrumentation is switched on
# after a warm-up and off before shutdown). Prints instructions per request, attributed by
# `profile_table.py`, and keeps the callgrind file for `callgrind_annotate`.
#
#   server/benches/profile.sh                    # N=400 P=8, on the dev PostgreSQL
#   N=1000 P=16 DATABASE=kaadxpay_profile_me server/benches/profile.sh
#
# Environment: PGURL (postgres://postgres@127.0.0.1:5432, the dev server), DATABASE (a database
# of its own, dropped and made again), N, P, WARMUP (50), RUST_LOG (warn, as the benchmark),
# OUT (target/profile), BIN (a kaadxpay built before, instead of building), KAADXPAY_REQUEST_LOG (on; `off` profiles without the request log).
set -euo pipefail
cd "$(dirname "$0")/../.."
PGURL=${PGURL:-postgres://postgres@127.0.0.1:5432}
DATABASE=${DATABASE:-kaadxpay_profile_$(whoami)}
N=${N:-400}
P=${P:-8}
WARMUP=${WARMUP:-50}
OUT=${OUT:-target/profile}
export RUST_LOG=${RUST_LOG:-warn}
mkdir -p "$OUT"

if [ -z "${BIN:-}" ]; then
  cargo build --release -p server --bin kaadxpay >&2
  BIN=target/release/kaadxpay
fi

psql -q "$PGURL/postgres" -c "DROP DATABASE IF EXISTS $DATABASE WITH (FORCE)" -c "CREATE DATABASE $DATABASE"
export DATABASE_URL="$PGURL/$DATABASE"
export KAADXPAY_SECRETS_KEY=${KAADXPAY_SECRETS_KEY:-$(printf '42%.0s' {1..32})}
# The background workers are put off, so that the window counts the requests (and the request
# log's writer, which writes them), not a payout or webhook poll that happens to fall in it.
export KAADXPAY_SWEEP_INTERVAL=1h KAADXPAY_PAYOUT_INTERVAL=1h KAADXPAY_PAYOUT_POLL_INTERVAL=1h \
  KAADXPAY_RECONCILE_INTERVAL=1h KAADXPAY_WEBHOOK_INTERVAL=1h
API_KEY=$("$BIN" merchants create --name "Profile Merchant" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])')

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
CG="$OUT/callgrind.out"
rm -f "$CG"
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$CG" \
  "$BIN" serve --addr "127.0.0.1:$PORT" >"$OUT/serve.log" 2>&1 &
VG=$!
trap 'kill $VG 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do
  curl -fsS "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break
  sleep 0.5
done

source server/benches/new_keys.sh

RUN=$(date +%s%N)
drive "warm-$RUN" "$WARMUP"
callgrind_control --instr=on $VG >/dev/null
drive "new-$RUN" "$N"
# Let the request log's writer write what the window served (it flushes in batches).
sleep 3
callgrind_control --instr=off $VG >/dev/null
kill -TERM $VG
wait $VG || true
trap - EXIT

python3 server/benches/profile_table.py "$CG" "$N"
