-- wrk script for `POST /v1/orders`, driven by the benchmark (benches/idempotency/wrk.rs).
-- Arguments after `--`: <api key> <key prefix> <mode> [replay key count]
--   mode `new`:    every request carries a fresh Idempotency-Key, <prefix>-<thread>-<n>;
--   mode `replay`: requests cycle over the keys <prefix>-1 .. <prefix>-<count>, already completed.
-- `done` prints one `WRK key=value ...` line (latencies in microseconds) for the Rust side to parse.

local threads = {}

function setup(thread)
  thread:set("thread_id", #threads + 1)
  table.insert(threads, thread)
end

local headers, prefix, mode, replay_count
local n = 0

function init(args)
  prefix, mode, replay_count = args[2], args[3], tonumber(args[4] or "0")
  headers = {
    ["Authorization"] = "Bearer " .. args[1],
    ["Content-Type"] = "application/json",
  }
  wrk.method = "POST"
  wrk.body = '{"amount": 1000, "currency": "EUR", "description": "benchmark order"}'
end

function request()
  n = n + 1
  if mode == "replay" then
    headers["Idempotency-Key"] = prefix .. "-" .. ((n * thread_id) % replay_count + 1)
  else
    headers["Idempotency-Key"] = prefix .. "-" .. thread_id .. "-" .. n
  end
  return wrk.format(nil, nil, headers, nil)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "WRK requests=%d duration_us=%d non_2xx=%d connect=%d read=%d write=%d timeout=%d p50=%d p99=%d p999=%d max=%d\n",
    summary.requests, summary.duration, e.status, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max))
end
