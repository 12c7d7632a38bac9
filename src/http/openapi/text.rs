//! The prose of the documents: introductions and the webhook and callback rules.

pub(super) const FULFILLMENT_INTRO: &str = "Orders, products, inventory, packages and webhooks of one fulfilld appliance.\n\n\
**Authentication.** Every `/api/*` route except `/api/openapi.json` and `/api/docs` needs `Authorization: Bearer <token>` \
(from `POST /oauth/token`, client credentials in the form or HTTP Basic) or `X-API-Key: <key>`. \
Clients are created with `fulfilld clients create`; the first start writes `bootstrap-credentials.json` into the data directory. \
People using the console are authenticated by its session cookie instead (log in at `/console/login`): unsafe methods then need the \
session's `X-CSRF-Token` header (`403 csrf_failed` without it), and the person's role decides the routes (`403 forbidden`): \
`packer` reads orders and packages; `operator` also manages orders, products, warehouses, inventory and webhook deliveries; `admin` also webhook subscriptions.\n\n\
**Errors.** Every error body is `{\"error\": {\"code\", \"message\", \"field\"}}`; `field` names the offending input (`items[0].sku`) or is null. \
`405` responses carry `Allow`; a body over the limit (default 10 MiB) is `413` and the connection is closed; \
a slow request body is `408 request_timeout`.\n\n\
**Rate limits.** A token bucket per client (per IP without credentials) holding `burst` tokens, refilled at `rpm/60` per second. \
Every response carries `X-RateLimit-Limit` (rpm), `X-RateLimit-Remaining` and `X-RateLimit-Reset` (unix seconds when the bucket is full); \
over the limit: `429 rate_limited` with `Retry-After` seconds. Tiers: starter 60/100, growth 100/200, pro 200/400, enterprise 500/1000, unlimited.\n\n\
**Idempotency.** Any POST or PATCH may carry `Idempotency-Key` (1-255 visible ASCII characters). For 24 h the same key and request \
replays the stored response with `Idempotent-Replayed: true`; the same key with another request is `422 idempotency_key_reused`; \
while the first request runs, `409 idempotency_in_progress`. 5xx responses are not stored.\n\n\
**Lists** take `limit` (1-200, default 50) and `offset`, are newest first, and return `pagination {limit, offset, total}`.\n\n\
**Reading values.** Bodies are JSON objects, and a field documented as an object is one (an array in its place is `400`). \
An integer may be written as an integral float (`5.0`); a fraction is `400`. Text limits count the characters as sent, \
and the stored value is trimmed. A query parameter takes one value (given twice: `400`); an empty filter (`status=`) is no filter.\n\n\
**Durability.** A 2xx to a write means it is flushed to disk.\n\n\
**Links.** Responses that create or return a resource carry OpenAPI `links` to the operations that take its id \
(`POST /api/orders` to get, update, cancel, pack, its events and packages; a webhook to its test, deliveries and rotate-secret; \
a package to ship, packed, instructions, diagram and slip), each naming the target's `operationId` and the field as `$response.body#/id`.";

/// The webhook section of the fulfillment document's description (and of `/api/docs`).
pub(super) const WEBHOOKS_DOC: &str = r#"

**Webhooks.** Each event becomes one delivery per active subscription that lists its type: a `POST` of the envelope `{"id": "evt_...", "type", "timestamp", "data"}` (schema `WebhookEvent`) with `Content-Type: application/json`, `X-Webhook-Signature` (lowercase hex HMAC-SHA256 of `<X-Webhook-Timestamp>.<raw body>` keyed with the subscription secret), `X-Webhook-Timestamp` (unix seconds of this attempt) and `X-Webhook-Id` (the envelope id). Any 2xx within 30 s is success; another status, a timeout or a connection failure is a failed attempt, and redirects are not followed. Attempt 1 is immediate; attempts 2-5 follow 1 min, 5 min, 30 min and 2 h after the previous failure (configurable); after the fifth failure the delivery is `failed`, and `POST /api/webhooks/{id}/deliveries/{deliveryId}/retry` or `POST /api/webhooks/{id}/recover` re-queue it. The queue is on disk: a delivery survives restarts and crashes and may arrive more than once, always with the same id and body, so de-duplicate on `id`. A subscription receives the events that happen after it is created (or re-activated, or given a new type); an event of a type that no active subscription lists is not recorded at all. Up to four deliveries to one subscription run at once, so events may arrive out of order (unless it is `ordered`, below); a slow endpoint never delays the others.

**Signature schemes.** `signatureScheme` picks the headers per subscription. `fulfilld` (the default) is the one described here: `X-Webhook-Signature`, `X-Webhook-Timestamp`, `X-Webhook-Id`. `standard-webhooks` follows the Standard Webhooks specification (standardwebhooks.com), so its libraries verify deliveries as they are: `webhook-id` (the envelope id), `webhook-timestamp` (unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of <webhook-id>.<webhook-timestamp>.<raw body>>`, keyed with the base64-decoded part of a `whsec_<base64>` secret (24 to 64 bytes; other secrets are refused with 422). Python: `standardwebhooks.webhooks.Webhook(secret).verify(raw_body, headers)`.

**Rotating the secret.** `POST /api/webhooks/{id}/rotate-secret` (optional body `{"gracePeriodSeconds": 0-604800}`, default 86400) replaces the secret with a new random `whsec_...` one, returned in that response only. Until the grace period ends (`previousSecretExpiresAt`) deliveries carry both signatures, so receivers can switch at any time in it: with `standard-webhooks`, two space-separated `v1,` entries in `webhook-signature` (the libraries accept either); with `fulfilld`, `X-Webhook-Signature` is signed with the new secret exactly as always and `X-Webhook-Signature-Previous` (same rules) with the previous one, so a receiver still holding the old secret checks that header. Setting `secret` or `signatureScheme` with PATCH ends a grace period at once.

**Receivers are listened to.** A `410 Gone` answer disables the subscription at once: `isActive` becomes false with a `disabledReason`, the delivery ends `failed` and its queued ones end with the same reason. A `429` or `503` with `Retry-After` (seconds or an HTTP date, at most 24 h) pushes that delivery's next attempt back at least that long, and nothing else is sent to the subscription before then. A subscription whose every attempt has failed for `webhook_disable_after` (default 5 days, counted from `failingSince`, the first failure after the last success) is disabled the same way and the server logs it. `PATCH {"isActive": true}` turns it on again (events emitted while it was off are not delivered; `recover` re-sends its failed deliveries). A `3xx` is a failed attempt: redirects are never followed.

**Ordered delivery.** With `ordered: true` a subscription has one delivery in flight at a time, in the order the events were committed: the next event is queued for it only once the one before is delivered or has failed for good (all its attempts), so a failing delivery holds the ones behind it for up to its retry schedule. Manual retries, recovers and test events join the same one-at-a-time queue.

**Verifying a delivery.** (1) Build `<timestamp>.<raw body>` from the `X-Webhook-Timestamp` value and the unparsed body. (2) Compute HMAC-SHA256 of it with the subscription secret, as lowercase hex. (3) Compare it with `X-Webhook-Signature` in constant time. (4) Reject the delivery when the timestamp differs from the current time by more than 300 seconds.

Python:

```
import hashlib, hmac, time
def verify(secret: bytes, headers, raw_body: bytes) -> bool:
    ts = headers["X-Webhook-Timestamp"]
    if abs(time.time() - int(ts)) > 300:
        return False
    expected = hmac.new(secret, ts.encode() + b"." + raw_body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, headers["X-Webhook-Signature"])
```

Rust (crates `hmac`, `sha2`, `hex`, `subtle`):

```
use hmac::{Hmac, Mac};
use subtle::ConstantTimeEq;
fn verify(secret: &[u8], ts: &str, signature: &str, raw_body: &[u8], now_secs: i64) -> bool {
    let Ok(t) = ts.parse::<i64>() else { return false };
    if (now_secs - t).abs() > 300 {
        return false;
    }
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret).expect("any key size");
    mac.update(ts.as_bytes());
    mac.update(b".");
    mac.update(raw_body);
    let expected = hex::encode(mac.finalize().into_bytes());
    expected.as_bytes().ct_eq(signature.as_bytes()).into()
}
```"#;

/// The fulfillment flow and the inbound callback rules, for WMS and carrier integrators.
pub(super) const FULFILLMENT_DOC: &str = r#"

**Fulfillment.** Right after an order is created the appliance packs it on its worker pool with the packing engine, per reserving warehouse, with that warehouse's box catalog and the products' dimensions, weights, orientation and hazmat class. One transaction stores the packages (schema `Package`, every unit's placement included), moves the order to `processing` (`order.updated`) and emits one `package.created` per package. An order that cannot be packed (a product without dimensions or weight, a warehouse without boxes, a unit that fits no box) stays `pending` with `pendingReason`; fix the cause and call `POST /api/orders/{id}/pack`. `POST /api/fulfillment/packages/{id}/ship` ships a package: its units leave onHand and reserved (`inventory.adjusted`), `package.shipped` is emitted, and when every package of the order has shipped the order becomes `shipped` with `order.shipped` `{orderId, status, trackingNumbers}`. When every package is delivered the order becomes `delivered` (`order.updated`). Cancelling a `processing` order voids its packages and releases the stock; once a package has shipped the order can no longer be cancelled.

**At the packing bench.** `GET /api/packages/{id}/instructions` gives the box to take and the units as numbered steps a person can follow (each after the units it rests on, none above an earlier one: things are lowered in from the top); `GET /api/packages/{id}/diagram.svg?step=K` draws the open box with steps 1..K (step K highlighted with its SKU, `0` the empty box, no `step` the packed box); `GET /api/packages/{id}/slip?paper=a4|letter` is the printable packing slip with a Code 128 barcode of the package id.

**Inbound callbacks (for WMS and carrier integrators).** `POST /api/wms/webhooks/package-status` takes `{eventId, packageId, status, occurredAt, carrier?, trackingNumber?, service?, location?}`; `POST /api/webhooks/carriers/{carrier}/tracking` takes `{eventId, trackingNumber, status, occurredAt, location?}` for a package shipped with that carrier. `status` is one of `created`, `picking`, `packed`, `shipped`, `in_transit`, `out_for_delivery`, `delivered`, `exception`, `returned`. Sign each request like the appliance signs its own deliveries, with the secret of the source (set on the appliance with `fulfilld inbound set-secret --source wms` or `--source carrier:NAME`, NAME as in the path, lower case):

1. Take the current unix time in seconds as `X-Webhook-Timestamp`; requests more than 300 seconds from the appliance's clock are refused with 401.

2. Compute HMAC-SHA256 over `<X-Webhook-Timestamp>.<raw request body>` (the exact bytes sent) keyed with the source's secret.

3. Send it as lowercase hex in `X-Webhook-Signature`. A wrong signature, a missing header or an unknown source is `401 unauthorized`.

```
ts=$(date +%s); body='{"eventId":"wms-1","packageId":"pkg_...","status":"picking","occurredAt":"2026-11-22T09:00:00Z"}'
sig=$(printf '%s.%s' "$ts" "$body" | openssl dgst -sha256 -hmac "$WMS_SECRET" -hex | sed 's/^.* //')
curl -X POST https://HOST:8443/api/wms/webhooks/package-status -H 'Content-Type: application/json' -H "X-Webhook-Timestamp: $ts" -H "X-Webhook-Signature: $sig" -d "$body"
```

A source that cannot sign may send `Authorization: Bearer <token>` or `X-API-Key` instead. `eventId` is unique per source: a repeated one is answered 200 with outcome `duplicate` and changes nothing, so retry freely. A package never moves backwards: an event at or behind its current progress (a late `in_transit` after `delivered`) is recorded with outcome `ignored` and a note, not applied; `exception` pauses progress, which resumes with the next forward status. Moving a package to `shipped` or beyond ships it as the ship endpoint does. An unknown `packageId` or tracking number is 404. Every event is kept and readable at `GET /api/packages/{id}/events`."#;

pub(super) const PACKING_INTRO: &str = "3D bin packing of items into boxes across warehouses. `POST /api/v1/optimize` needs `X-API-Key`; \
errors use the envelope `{\"error\": {\"code\", \"message\", \"field\"}}`. \
An optional field set to null is read as absent; an integer may be written as an integral float (`6.0`); \
a field documented as an object is one (an array in its place is `400`).";
