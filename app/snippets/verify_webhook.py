import base64, hashlib, hmac, time

TOLERANCE_S = 5 * 60

def verify(secret: str, headers: dict, body: bytes) -> None:
    """Raises ValueError unless the request was signed with `secret` within the tolerance."""
    msg_id, timestamp = headers["webhook-id"], headers["webhook-timestamp"]
    if abs(time.time() - int(timestamp)) > TOLERANCE_S:
        raise ValueError("timestamp outside the tolerance: a replayed or delayed request")
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{msg_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    for candidate in headers["webhook-signature"].split(" "):
        version, _, signature = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(signature, expected):
            return
    raise ValueError("no valid signature")
