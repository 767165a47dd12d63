"""Schemathesis hooks for the run in server/tests/integration/ops/schemathesis.rs.

A valid `Idempotency-Key` is made unique per request, just before it is sent (in every phase:
the examples and the coverage phase send fixed keys that no generation hook sees). Without it the generator reuses
keys, and so does Hypothesis when it runs a stateful sequence again (to shrink or replay it)
against a server that remembers: a `POST` that repeats an earlier one rightly replays the
stored answer, which may name a resource a later step deleted (`ST302 Created resource not
found`), or is refused `422 idempotency_key_reused`. Reuse is the subject of the API's own tests
(api::idempotency), not of this run; invalid keys are left as generated, so their `400` is
still checked.
"""

import uuid

import schemathesis

HEADER = "Idempotency-Key"


def is_valid_key(key):
    return isinstance(key, str) and 1 <= len(key) <= 255 and all("!" <= c <= "~" for c in key)


@schemathesis.hook
def before_call(context, case, kwargs):
    headers = case.headers
    if headers and is_valid_key(headers.get(HEADER)):
        headers[HEADER] = f"st-{uuid.uuid4()}"
