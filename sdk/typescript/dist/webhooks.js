// Webhook verification (Standard Webhooks, API.md §5): the signature over
// `{webhook-id}.{webhook-timestamp}.{body}`, HMAC-SHA256 keyed with the secret's base64 part,
// any of several secrets during a rotation, and a timestamp within a tolerance.
import { createHmac, timingSafeEqual } from "node:crypto";
import { SignatureVerificationError } from "./errors.js";
/** How far a delivery's timestamp may be from now, in seconds. */
export const DEFAULT_TOLERANCE = 300;
/** Every event type (tsc refuses this table when a regeneration adds one it lacks). */
const EVERY_EVENT_TYPE = {
    "order.created": true, "order.captured": true, "order.cancelled": true,
    "payout.created": true, "payout.in_transit": true, "payout.paid": true, "payout.failed": true,
    "payout.reversed": true, "payout.pending_approval": true, "payout.approved": true,
    "payout.rejected": true, "payout.cancelled": true,
    "refund.created": true, "refund.succeeded": true, "refund.failed": true,
    "top_up.received": true,
};
const EVENT_TYPES = new Set(Object.keys(EVERY_EVENT_TYPE));
function header(headers, name) {
    if (typeof headers.get === "function")
        return headers.get(name);
    for (const [key, value] of Object.entries(headers)) {
        if (key.toLowerCase() === name)
            return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
    }
    return null;
}
function isEvent(body) {
    return typeof body === "object" && body !== null && "event_type" in body && typeof body.event_type === "string"
        && EVENT_TYPES.has(body.event_type) && "data" in body;
}
export class Webhooks {
    /**
     * The event of a delivery, typed by its `event_type`, once its signature is verified with
     * `secret` (or any of several secrets during a rotation); else SignatureVerificationError.
     * `payload` is the raw body, as received.
     */
    constructEvent(payload, headers, secret, tolerance = DEFAULT_TOLERANCE) {
        const body = typeof payload === "string" ? Buffer.from(payload) : Buffer.from(payload);
        const id = header(headers, "webhook-id");
        const timestamp = header(headers, "webhook-timestamp");
        const signatures = header(headers, "webhook-signature");
        if (!id || !timestamp || !signatures) {
            throw new SignatureVerificationError("The delivery lacks its webhook-id, -timestamp or -signature header.");
        }
        const signedAt = Number(timestamp);
        if (!Number.isInteger(signedAt))
            throw new SignatureVerificationError("The webhook-timestamp is not a number.");
        if (Math.abs(Date.now() / 1000 - signedAt) > tolerance) {
            throw new SignatureVerificationError("The webhook-timestamp is too old or too new.");
        }
        const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`), body]);
        const expected = (typeof secret === "string" ? [secret] : secret).map((one) => createHmac("sha256", Buffer.from(one.replace(/^whsec_/, ""), "base64")).update(signed).digest());
        const offered = signatures.split(" ").filter((part) => part.startsWith("v1,")).map((part) => Buffer.from(part.slice(3), "base64"));
        const matches = expected.some((mine) => offered.some((theirs) => theirs.length === mine.length && timingSafeEqual(mine, theirs)));
        if (!matches)
            throw new SignatureVerificationError("No signature matches the secret.");
        let event;
        try {
            event = JSON.parse(body.toString("utf8"));
        }
        catch {
            throw new SignatureVerificationError("The signed body is not JSON.");
        }
        if (!isEvent(event))
            throw new SignatureVerificationError("The signed body is not a known event.");
        return event;
    }
}
