# Sourced by profile.sh and database_profile.sh: new-key `POST /v1/orders` (the benchmark's
# body, each with a key of its own) sent by curl on keep-alive connections, P at a time, to the
# server on 127.0.0.1:$PORT as the merchant of $API_KEY; curl's files go to $OUT.

# One curl config: N transfers, each with its own key (`next` starts a transfer's options).
requests() { # <prefix> <count>
  for i in $(seq 1 "$2"); do
    printf 'url = "http://127.0.0.1:%s/v1/orders"\n' "$PORT"
    printf 'header = "Authorization: Bearer %s"\n' "$API_KEY"
    printf 'header = "Content-Type: application/json"\n'
    printf 'header = "Idempotency-Key: %s-%s"\n' "$1" "$i"
    printf 'data = "{\\"amount\\": 1000, \\"currency\\": \\"EUR\\", \\"description\\": \\"benchmark order\\"}"\n'
    printf 'output = "/dev/null"\n'
    printf 'write-out = "%%{http_code}\\n"\n'
    if [ "$i" -lt "$2" ]; then printf 'next\n'; fi
  done
}
drive() { # <prefix> <count>; fails unless every answer is a 201
  requests "$1" "$2" >"$OUT/$1.curl"
  curl -sS --parallel --parallel-max "$P" -K "$OUT/$1.curl" >"$OUT/$1.codes"
  local created
  created=$(grep -c '^201$' "$OUT/$1.codes" || true)
  [ "$created" -eq "$2" ] || { echo "only $created of $2 answered 201" >&2; sort "$OUT/$1.codes" | uniq -c >&2; exit 1; }
}
