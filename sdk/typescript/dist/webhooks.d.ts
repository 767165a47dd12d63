import type { components, webhooks } from "./schema.js";
/** What an endpoint receives: one body per event type, told apart by its `event_type`. */
export type WebhookEvent = {
    [Type in keyof webhooks]: webhooks[Type]["post"]["requestBody"]["content"]["application/json"];
}[keyof webhooks];
export type WebhookEventType = WebhookEvent["event_type"];
/** How far a delivery's timestamp may be from now, in seconds. */
export declare const DEFAULT_TOLERANCE = 300;
type Headers = Record<string, string | string[] | undefined> | {
    get(name: string): string | null;
};
export declare class Webhooks {
    /**
     * The event of a delivery, typed by its `event_type`, once its signature is verified with
     * `secret` (or any of several secrets during a rotation); else SignatureVerificationError.
     * `payload` is the raw body, as received.
     */
    constructEvent(payload: string | Uint8Array, headers: Headers, secret: string | readonly string[], tolerance?: number): WebhookEvent;
}
export type { components };
