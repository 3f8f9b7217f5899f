// The CommonJS build: require() gives the same API, and it verifies a delivery.
const assert = require("node:assert/strict");
const { test } = require("node:test");
const gatehouse = require("gatehouse-kyc-client");

test("require('gatehouse-kyc-client') loads the CommonJS build", async () => {
  assert.equal(require.resolve("gatehouse-kyc-client").endsWith("/dist/cjs/index.js"), true);
  assert.equal(typeof gatehouse.Gatehouse, "function");
  assert.equal(new gatehouse.NotFound("x") instanceof gatehouse.GatehouseError, true);
  const body = '{"id":"evt_1","type":"webhook.test","data":{}}';
  const headers = {
    "Gatehouse-Event-Id": "evt_1",
    "Gatehouse-Event-Type": "webhook.test",
    "Gatehouse-Timestamp": "1000",
    "Gatehouse-Signature": await gatehouse.signatureHeader(["s3cret"], 1000, body),
  };
  const event = await gatehouse.verifyWebhook(body, headers, { secrets: "s3cret", now: 1000 });
  assert.equal(event.id, "evt_1");
});
