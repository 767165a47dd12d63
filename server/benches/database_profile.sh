#!/usr/bin/env bash
# PostgreSQL's instructions per new key, beside the bench's bare effect. A cluster of its own
# (as the bench's: durable, no locale) runs under `valgrind --tool=callgrind`, and so does every
# process it starts; a backend's counts are written when it ends. The release `kaadxpay serve`
# on it takes WARMUP new-key `POST /v1/orders`, one at a time, and is stopped; then a second
# `serve` takes WARMUP + N. The difference between what their backends counted (the statement
# connections', the request log writer's, the pool's), over N, is a new key's, each backend's
# start left out. The bare effect (`idempotency/bare_effect.sql`) is counted the same way,
# through pgbench on one connection. One request at a time, so that both servers open about the
# same connections: the counts do not depend on the machine's load, but a connection's start
# costs as much as some hundred keys, so the report says how many each server opened. Full-page images and autovacuum are off (which pages a run
# writes first after a checkpoint, and when autovacuum runs, are chance), and the cluster's
# own processes (the WAL writer, the checkpointer) are not counted.
#
#   server/benches/database_profile.sh                  # N=2000
#   BIN=<a kaadxpay built before> server/benches/database_profile.sh
#
# Environment: N, WARMUP (50), OUT (target/database-profile, where the callgrind files of each
# server's backends are kept for `callgrind_annotate`), BIN, RUST_LOG (warn, as the benchmark).
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-2000}
P=1
WARMUP=${WARMUP:-50}
OUT=$(realpath -m "${OUT:-target/database-profile}")
export RUST_LOG=${RUST_LOG:-warn}
rm -rf "$OUT" && mkdir -p "$OUT"

if [ -z "${BIN:-}" ]; then
  cargo build --release -p server --bin kaadxpay >&2
  BIN=target/release/kaadxpay
fi
PGBIN=$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d | sort -V | tail -1)
# PostgreSQL refuses to run as root: the cluster is the postgres user's, in a folder of its own.
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
DIR=$(mktemp -d /tmp/kaadxpay-database-profile.XXXXXX)
if [ "$(id -u)" = 0 ]; then chown postgres "$DIR"; fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PGPORT=$(free_port)
(cd "$DIR" && as_postgres "$PGBIN/initdb" -D "$DIR/data" -A trust -U postgres --no-locale \
  --encoding=UTF8 >/dev/null)
(cd "$DIR" && as_postgres valgrind --tool=callgrind --callgrind-out-file="$DIR/cg.%p" \
  "$PGBIN/postgres" -D "$DIR/data" -p "$PGPORT" -c listen_addresses= \
  -c unix_socket_directories="$DIR" -c max_connections=300 -c wal_compression=zstd \
  -c checkpoint_timeout=60min -c max_wal_size=8GB -c full_page_writes=off -c autovacuum=off) \
  >"$OUT/postgres.log" 2>&1 &
PG=$!
SERVE=
stop() {
  if [ -n "$SERVE" ]; then kill "$SERVE" 2>/dev/null || true; fi
  as_postgres "$PGBIN/pg_ctl" -D "$DIR/data" -m fast stop >/dev/null 2>&1 || kill "$PG" 2>/dev/null
  wait "$PG" 2>/dev/null || true
  rm -rf "$DIR"
}
trap stop EXIT
sql() { psql -qAt -h "$DIR" -p "$PGPORT" -U postgres "$@"; }
for _ in $(seq 1 300); do sql -d postgres -c 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.5; done
sql -d postgres -c 'CREATE DATABASE kaadxpay'

export DATABASE_URL="postgres:///kaadxpay?host=$DIR&port=$PGPORT&user=postgres"
export KAADXPAY_SECRETS_KEY=${KAADXPAY_SECRETS_KEY:-$(printf '42%.0s' {1..32})}
# The background workers put off, as profile.sh does: the counts are the requests'.
export KAADXPAY_SWEEP_INTERVAL=1h KAADXPAY_PAYOUT_INTERVAL=1h KAADXPAY_PAYOUT_POLL_INTERVAL=1h \
  KAADXPAY_RECONCILE_INTERVAL=1h KAADXPAY_WEBHOOK_INTERVAL=1h
MERCHANT=$("$BIN" merchants create --name "Profile Merchant" --json)
API_KEY=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["api_key"])' "$MERCHANT")
MERCHANT_ID=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["merchant_id"])' "$MERCHANT")
sql -d kaadxpay -f server/benches/idempotency/reference_schema.sql \
  -f server/benches/idempotency/bare_effect_schema.sql \
  -c "INSERT INTO reference.merchants (id, name, api_key_hash) VALUES ('$MERCHANT_ID', 'bare', '\\x00')"
source server/benches/new_keys.sh

# The sum of the `totals:` of the callgrind files among `$@`.
totals() { cat "$@" | awk '/^totals:/ { sum += $2 } END { printf "%d\n", sum }'; }

# The callgrind files of the processes that ended, a path a line (a process writes its counts
# when it ends: the cluster's own processes, still running, have none yet).
ended() {
  local file
  for file in $(find "$DIR" -name 'cg.*' | sort); do
    [ -d "/proc/${file##*.}" ] || echo "$file"
  done
}

# Lists the files of the processes that ended into `$1`, once no client is connected and each
# of them is written (a backend under valgrind takes a while to end).
settle() {
  for _ in $(seq 1 200); do
    [ "$(sql -d postgres -c "SELECT count(*) FROM pg_stat_activity
      WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")" -eq 0 ] && break
    sleep 0.5
  done
  local files
  for _ in $(seq 1 200); do
    files=$(ended)
    if [ -z "$files" ] || [ "$(grep -L '^totals:' $files | wc -l)" -eq 0 ]; then
      sleep 1
      [ "$(ended | wc -l)" -eq "$(echo "$files" | wc -w)" ] && break
    fi
    sleep 0.5
  done
  echo "$files" >"$1"
}

# The files of the processes that ended since `$1`, a listing of `settle`.
ended_since() {
  settle "$1.after"
  comm -13 "$1" "$1.after"
}

# What the backends of a `serve` that took `$1` new keys counted, in all.
served() {
  settle "$DIR/before-served-$1"
  PORT=$(free_port)
  "$BIN" serve --addr "127.0.0.1:$PORT" >"$OUT/serve-$1.log" 2>&1 &
  SERVE=$!
  for _ in $(seq 1 600); do
    curl -fsS "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break
    sleep 0.5
  done
  # The workers' first rounds at start (a purge, the reconciliation) open connections of their
  # own: let them end first, so that both servers' requests find the same pool.
  sleep 5
  drive "served-$1-$RUN" "$1" >&2
  # Let the request log's writer write what was served (it flushes in batches).
  sleep 3
  kill "$SERVE" && wait "$SERVE" 2>/dev/null || true
  SERVE=
  local files
  files=$(ended_since "$DIR/before-served-$1")
  mkdir -p "$OUT/served-$1" && cp $files "$OUT/served-$1/"
  echo "$(totals $files) $(echo "$files" | wc -w)"
}

# What the backend of one pgbench connection that ran `$1` bare effects counted: the largest of
# the files of the backends that began meanwhile (pgbench opens a connection of its own first).
bare() {
  settle "$DIR/before-bare-$1"
  pgbench -h "$DIR" -p "$PGPORT" -U postgres -n -M prepared -c 1 -t "$1" -D "merchant=$MERCHANT_ID" \
    -f server/benches/idempotency/bare_effect.sql kaadxpay >"$OUT/pgbench-$1.log" 2>&1
  local largest
  largest=$(for file in $(ended_since "$DIR/before-bare-$1"); do echo "$(totals "$file") $file"; done \
    | sort -n | tail -1)
  cp "${largest#* }" "$OUT/bare-$1.cg"
  echo "${largest%% *}"
}

RUN=$(date +%s%N)
SERVED_SHORT=$(served "$WARMUP")
SERVED_LONG=$(served $((WARMUP + N)))
BARE_SHORT=$(bare "$WARMUP")
BARE_LONG=$(bare $((WARMUP + N)))

python3 - $SERVED_SHORT $SERVED_LONG "$BARE_SHORT" "$BARE_LONG" "$N" <<'REPORT'
import sys
served_short, short_backends, served_long, long_backends, bare_short, bare_long, n = (
    int(x) for x in sys.argv[1:])
per_key, per_bare = (served_long - served_short) / n, (bare_long - bare_short) / n
print(f"PostgreSQL's instructions per new key (its backends): {per_key:,.0f} "
      f"(the servers' backends: {short_backends} and {long_backends})")
print(f"per bare effect (its backend):                        {per_bare:,.0f}")
print(f"new key / bare effect:                                {per_key / per_bare:.2f}")
REPORT
echo "callgrind files of each server's backends: $OUT/served-*/; of the bare effect's: $OUT/bare-*.cg"
