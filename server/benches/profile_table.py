#!/usr/bin/env python3
"""Attributes a callgrind profile of `kaadxpay serve` (see profile.sh) to what a request passes
through, and prints instructions per request and shares.

Usage: profile_table.py <callgrind.out> <requests>

Each function's own instructions go to the category of the code it runs for. A function named
by an *outer* category (auth, the request log, fingerprinting, metrics, logging) takes
everything under it; one named by an *inner* category (HTTP parsing, routing, JSON, the
statement's encoding, the pool, the rest of sqlx) takes what is under it unless an outer
category called it. A function named by none runs for its callers, shared in proportion to the
instructions each call spent (callgrind keeps no stacks, so this is the usual approximation).
What no category claims is `the rest` (the handler and the engine's own code, tokio, the
allocator under no category, the kernel's share being invisible to callgrind).
"""

import re
import sys
from collections import defaultdict

OUTER = [
    ("auth (API key, its cache, key usage)",
     r"server::accounts::auth::(authenticate|look_up|hash_api_key|cache::ApiKeyCache::get|usage::KeyUsage::note)"
     r"|Merchant as axum_core::extract::from_request::FromRequestParts"),
    ("request log (layer, buffer, writer)", r"server::edge::request_log::|server::request_log::"),
    ("fingerprint (JCS, SHA-256)", r"kaadxpay_idempotency::fingerprint::"),
    ("metrics", r"^<?metrics::|metrics_exporter_prometheus|metrics_util|<?metrics::"),
    # Not `Instrumented::poll` nor `Span::in_scope`: they wrap the request's own work.
    ("logging/tracing",
     r"tracing_subscriber|tracing_core|tracing::span::Span::(current|record|new|enter|exit|make_with|none)"
     r"|<tracing::span::Span as core::ops::drop::Drop>|drop_in_place<tracing::span::(Span|Entered)>"
     r"|tracing::span::Entered"),
]
INNER = [
    ("HTTP parsing/encoding (hyper)",
     r"Http1Transaction>::(parse|encode)|httparse::|hyper::proto::h1::role::|hyper::proto::h1::io::|hyper::proto::h1::(encode|decode)::"),
    ("routing (axum)", r"matchit::|axum::routing::url_params|set_matched_path_for_request|axum::routing::strip_prefix"),
    ("JSON (serde)", r"serde_json::|serde_jcs::"),
    ("statement's encoding (sqlx)",
     r"kaadxpay_idempotency::statement::|sqlx_postgres::arguments::|sqlx_core::arguments|sqlx_postgres::message::.*encode|Encode<sqlx_postgres|sqlx_core::encode::|PgBufMutExt"),
    ("sqlx pool and ping", r"sqlx_core::pool::|sqlx_postgres::connection::.*ping|Connection>::ping"),
    ("sqlx, other (I/O, decoding)", r"sqlx_core::|sqlx_postgres::"),
]
CATEGORIES = [name for name, _ in OUTER + INNER]
NONE = "the rest (handler, engine, tokio, allocator)"


def parse(path):
    names = {}
    own = defaultdict(int)
    edges = defaultdict(int)
    current = None
    callee = None
    pending_call = False
    total = None

    def fn_name(rest):
        match = re.match(r"\((\d+)\)(?: (.*))?$", rest)
        if not match:
            return rest
        ident, name = match.groups()
        if name is not None:
            names[ident] = name
        return names[ident]

    with open(path, errors="replace") as lines:
        for line in lines:
            line = line.rstrip("\n")
            if not line:
                continue
            head = line[0]
            if head.isdigit() or head in "+-*":
                parts = line.split()
                cost = int(parts[1]) if len(parts) > 1 else 0
                if pending_call:
                    edges[(current, callee)] += cost
                    pending_call = False
                else:
                    own[current] += cost
            elif line.startswith("fn="):
                current = fn_name(line[3:])
            elif line.startswith("cfn="):
                callee = fn_name(line[4:])
            elif line.startswith("calls="):
                pending_call = True
            elif line.startswith(("totals:", "summary:")):
                total = int(line.split()[1])
    return own, edges, total


def attribute(own, edges):
    outer = [(name, re.compile(pattern)) for name, pattern in OUTER]
    inner = [(name, re.compile(pattern)) for name, pattern in INNER]
    functions = set(own) | {f for edge in edges for f in edge}

    def named(function):
        for name, pattern in outer:
            if pattern.search(function):
                return "outer", name
        for name, pattern in inner:
            if pattern.search(function):
                return "inner", name
        return None, None

    kinds = {f: named(f) for f in functions}
    callers = defaultdict(list)
    for (caller, called), cost in edges.items():
        if caller != called and cost > 0:
            callers[called].append((caller, cost))
    outer_names = {name for name, _ in OUTER}
    context = {f: {NONE: 1.0} for f in functions}
    for _ in range(60):
        changed = False
        for function in functions:
            kind, name = kinds[function]
            if kind == "outer":
                mix = {name: 1.0}
            else:
                incoming = callers.get(function)
                if not incoming:
                    mix = {NONE: 1.0}
                else:
                    weight = sum(cost for _, cost in incoming)
                    mix = defaultdict(float)
                    for caller, cost in incoming:
                        for category, share in context[caller].items():
                            mix[category] += share * cost / weight
                if kind == "inner":
                    kept = {c: s for c, s in mix.items() if c in outer_names}
                    kept[name] = kept.get(name, 0.0) + 1.0 - sum(kept.values())
                    mix = kept
            mix = dict(mix)
            if any(abs(mix.get(c, 0) - context[function].get(c, 0)) > 1e-6 for c in set(mix) | set(context[function])):
                changed = True
            context[function] = mix
        if not changed:
            break
    shares = defaultdict(float)
    for function, cost in own.items():
        for category, share in context.get(function, {NONE: 1.0}).items():
            shares[category] += cost * share
    return shares


def main():
    path, requests = sys.argv[1], int(sys.argv[2])
    own, edges, total = parse(path)
    shares = attribute(own, edges)
    counted = sum(own.values())
    total = total or counted
    print(f"requests: {requests}; instructions in the window: {total:,} ({total / requests:,.0f} per request)")
    print()
    print("| where | instructions per request | share |")
    print("| --- | ---: | ---: |")
    for category in CATEGORIES + [NONE]:
        cost = shares.get(category, 0.0)
        print(f"| {category} | {cost / requests:,.0f} | {100 * cost / counted:.1f} % |")
    print(f"| **total** | **{total / requests:,.0f}** | 100 % |")


if __name__ == "__main__":
    main()
