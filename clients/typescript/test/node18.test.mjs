// Without a global `crypto` (Node 18 without --experimental-global-webcrypto), keys and
// signatures come from Node's own Web Crypto. This file hides the global from its process.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { Gatehouse, signatureHeader, verifyWebhook } from "gatehouse-kyc-client";
import { API_KEY, scripted } from "./scripted.mjs";

Object.defineProperty(globalThis, "crypto", { value: undefined, configurable: true, writable: true });
const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));

test("with no global crypto, writes still carry a generated Idempotency-Key", async () => {
  assert.equal(globalThis.crypto, undefined);
  const server = await scripted([{ status: 503 }, { status: 201, body: { clientId: "app_1", status: "pending" } }]);
  servers.push(server);
  const gh = new Gatehouse({ baseUrl: server.url, apiKey: API_KEY, backoffBase: 1 });
  await gh.createApplication({ email: "ada@example.test" });
  const keys = server.requests.map((r) => r.headers["idempotency-key"]);
  assert.match(keys[0], /^gh-[0-9a-f]{32}$/);
  assert.equal(keys[1], keys[0]);
});

test("with no global crypto, deliveries are verified", async () => {
  const body = '{"id":"evt_1","type":"webhook.test","data":{}}';
  const headers = {
    "Gatehouse-Event-Id": "evt_1",
    "Gatehouse-Event-Type": "webhook.test",
    "Gatehouse-Timestamp": "1000",
    "Gatehouse-Signature": await signatureHeader(["s3cret"], 1000, body),
  };
  assert.equal((await verifyWebhook(body, headers, { secrets: "s3cret", now: 1000 })).id, "evt_1");
});
