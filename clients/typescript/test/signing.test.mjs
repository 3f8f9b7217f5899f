// Webhook verification (docs/reference/webhooks.md §5) on deliveries the Python SDK signed.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  SignatureError,
  signatureHeader,
  standardSignatureHeader,
  standardWebhooksKey,
  timingSafeEqual,
  verifyWebhook,
} from "gatehouse-kyc-client";

const fixtures = JSON.parse(readFileSync(new URL("./fixtures/deliveries.json", import.meta.url), "utf8"));
const { new: NEW, old: OLD, legacy: LEGACY } = fixtures.secrets;
const NOW = fixtures.timestamp + 10;
const byName = (start) => fixtures.cases.find((c) => c.name.startsWith(start));
const approved = byName("approved");

async function reason(promise) {
  const error = await promise.then(() => null, (e) => e);
  assert.ok(error instanceof SignatureError, `expected SignatureError, got ${error}`);
  return error.reason;
}

test("every fixture verifies with the secrets it was signed with", async () => {
  for (const c of fixtures.cases) {
    const secrets = c.name.includes("legacy") ? [LEGACY] : [NEW];
    const event = await verifyWebhook(Buffer.from(c.body, "utf8"), c.headers, { secrets, now: NOW });
    assert.equal(event.id, JSON.parse(c.body).id, c.name);
  }
});

test("the SDK computes the same signature headers as the Python SDK", async () => {
  const h = approved.headers;
  assert.equal(await signatureHeader([NEW, OLD], fixtures.timestamp, approved.body), h["Gatehouse-Signature"]);
  assert.equal(await standardSignatureHeader([NEW, OLD], "evt_fx1", fixtures.timestamp, approved.body), h["webhook-signature"]);
});

test("during a rotation either held secret verifies; a foreign one does not", async () => {
  for (const secrets of [[NEW], [OLD], [OLD, NEW]]) {
    const event = await verifyWebhook(approved.body, approved.headers, { secrets, now: NOW });
    assert.equal(event.delivery.signatureScheme, "gatehouse");
  }
  const foreign = "whsec_" + "Q".repeat(48);
  assert.equal(await reason(verifyWebhook(approved.body, approved.headers, { secrets: foreign, now: NOW })), "signature_mismatch");
});

test("a known event is typed; its data is the object sent", async () => {
  const event = await verifyWebhook(approved.body, approved.headers, { secrets: [NEW], now: NOW });
  assert.equal(event.known, true);
  assert.equal(event.type, "application.decision.approved");
  assert.equal(event.data.clientId, "app_fx1");
  assert.equal(event.data.status, "active");
  assert.equal(event.tenantId, "ten_fixture");
  assert.equal(event.delivery.attempt, 1);
  assert.equal(event.delivery.timestamp, fixtures.timestamp);
});

test("an unknown event type is kept raw, never rejected", async () => {
  const c = byName("an event type");
  const event = await verifyWebhook(c.body, c.headers, { secrets: [NEW], now: NOW });
  assert.equal(event.known, false);
  assert.equal(event.type, "application.brand_new.thing");
  assert.deepEqual(event.data, { clientId: "app_fx2", whatever: [1, 2] });
});

test("the 300 s tolerance, both ways", async () => {
  const ts = fixtures.timestamp;
  for (const now of [ts + 300, ts - 300]) await verifyWebhook(approved.body, approved.headers, { secrets: NEW, now });
  for (const now of [ts + 301, ts - 301]) {
    assert.equal(await reason(verifyWebhook(approved.body, approved.headers, { secrets: NEW, now })), "timestamp_out_of_tolerance");
  }
  await verifyWebhook(approved.body, approved.headers, { secrets: NEW, now: ts + 3000, tolerance: 3600 });
});

test("a changed body, a missing or malformed header is refused", async () => {
  const h = approved.headers;
  const tampered = approved.body.replace('"active"', '"activE"');
  assert.equal(await reason(verifyWebhook(tampered, h, { secrets: NEW, now: NOW })), "signature_mismatch");
  const without = (name) => Object.fromEntries(Object.entries(h).filter(([k]) => k !== name));
  assert.equal(await reason(verifyWebhook(approved.body, without("Gatehouse-Timestamp"), { secrets: NEW, now: NOW })), "missing_timestamp");
  assert.equal(await reason(verifyWebhook(approved.body, { ...h, "Gatehouse-Timestamp": "12.5" }, { secrets: NEW, now: NOW })), "invalid_timestamp");
  assert.equal(await reason(verifyWebhook(approved.body, { ...h, "Gatehouse-Signature": "v0=abc" }, { secrets: NEW, now: NOW })), "no_v1_signature");
  assert.equal(await reason(verifyWebhook(approved.body, { ...h, "Gatehouse-Event-Id": "evt_other" }, { secrets: NEW, now: NOW })), "event_id_mismatch");
  assert.equal(await reason(verifyWebhook(approved.body, { ...h, "Gatehouse-Event-Type": "webhook.test" }, { secrets: NEW, now: NOW })), "event_type_mismatch");
});

test("the Gatehouse set is preferred: a bad Gatehouse signature is not rescued by the standard one", async () => {
  const h = { ...approved.headers, "Gatehouse-Signature": "v1=" + "0".repeat(64) };
  assert.equal(await reason(verifyWebhook(approved.body, h, { secrets: NEW, now: NOW })), "signature_mismatch");
});

test("Standard Webhooks headers alone verify with a whsec_ secret, not with a legacy one", async () => {
  const c = byName("Standard Webhooks");
  const event = await verifyWebhook(c.body, c.headers, { secrets: [NEW], now: NOW });
  assert.equal(event.delivery.signatureScheme, "standard-webhooks");
  assert.equal(event.delivery.attempt, null);
  assert.equal(await reason(verifyWebhook(c.body, c.headers, { secrets: [LEGACY], now: NOW })), "no_usable_secret");
  assert.equal(await reason(verifyWebhook(c.body, { ...c.headers, "webhook-id": "evt_x" }, { secrets: [NEW], now: NOW })), "signature_mismatch");
  const noId = Object.fromEntries(Object.entries(c.headers).filter(([k]) => k !== "webhook-id"));
  assert.equal(await reason(verifyWebhook(c.body, noId, { secrets: [NEW], now: NOW })), "missing_event_id");
  assert.equal(standardWebhooksKey(LEGACY), null);
  assert.equal(standardWebhooksKey(NEW)?.length, 36);
});

test("expected tenants", async () => {
  await verifyWebhook(approved.body, approved.headers, { secrets: NEW, now: NOW, expectedTenants: ["ten_fixture"] });
  const r = await reason(verifyWebhook(approved.body, approved.headers, { secrets: NEW, now: NOW, expectedTenants: ["ten_other"] }));
  assert.equal(r, "unexpected_tenant");
});

test("headers as a Fetch Headers object, as pairs, and in any case", async () => {
  const lower = Object.fromEntries(Object.entries(approved.headers).map(([k, v]) => [k.toLowerCase(), v]));
  await verifyWebhook(approved.body, new Headers(approved.headers), { secrets: NEW, now: NOW });
  await verifyWebhook(approved.body, Object.entries(approved.headers), { secrets: NEW, now: NOW });
  await verifyWebhook(approved.body, lower, { secrets: NEW, now: NOW });
});

test("the raw bytes are what is checked: non-ASCII bodies as Buffer, Uint8Array or string", async () => {
  const c = byName("a body with non-ASCII");
  const bytes = Buffer.from(c.body, "utf8");
  for (const body of [bytes, new Uint8Array(bytes), c.body, bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)]) {
    await verifyWebhook(body, c.headers, { secrets: NEW, now: NOW });
  }
  const reserialized = JSON.stringify(JSON.parse(c.body), null, 1);
  assert.equal(await reason(verifyWebhook(reserialized, c.headers, { secrets: NEW, now: NOW })), "signature_mismatch");
  await assert.rejects(() => verifyWebhook({ id: "x" }, c.headers, { secrets: NEW, now: NOW }), TypeError);
  await assert.rejects(() => verifyWebhook(c.body, c.headers, { secrets: [], now: NOW }), TypeError);
});

test("constant-time comparison compares whole strings of any length", () => {
  const a = new Uint8Array([1, 2, 3]);
  assert.equal(timingSafeEqual(a, new Uint8Array([1, 2, 3])), true);
  assert.equal(timingSafeEqual(a, new Uint8Array([1, 2, 4])), false);
  assert.equal(timingSafeEqual(a, new Uint8Array([1, 2])), false);
  assert.equal(timingSafeEqual(new Uint8Array([1, 2]), a), false);
});
