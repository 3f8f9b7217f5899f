// The dedupe helper, receiveWebhook and the two receiver examples (examples/), served on
// loopback and sent signed deliveries.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { MemoryDedupeStore, receiveWebhook, signatureHeader } from "gatehouse-kyc-client";
import { createReceiver } from "../build/examples/node-http-receiver.js";
import { createApp } from "../build/examples/express-receiver.js";

const SECRET = "whsec_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v2W3x4";
const closers = [];
after(() => Promise.all(closers.map((c) => c())));

async function delivery(id, type = "application.submitted", secret = SECRET, tenantId = "ten_1") {
  const body = JSON.stringify({ id, type, tenantId, data: { clientId: "app_1", status: "pending", sequence: 1 } });
  const ts = Math.floor(Date.now() / 1000);
  const headers = {
    "Content-Type": "application/json",
    "Gatehouse-Event-Id": id,
    "Gatehouse-Event-Type": type,
    "Gatehouse-Timestamp": String(ts),
    "Gatehouse-Attempt": "1",
    "Gatehouse-Signature": await signatureHeader([secret], ts, body),
  };
  return { body, headers };
}

test("the memory store accepts an id once, forgets after its ttl, and stays bounded", () => {
  let now = 0;
  const store = new MemoryDedupeStore({ ttl: 1000, maxEntries: 3, now: () => now });
  assert.equal(store.accept("evt_1"), true);
  assert.equal(store.accept("evt_1"), false);
  now = 1001;
  assert.equal(store.accept("evt_1"), true);
  for (const id of ["evt_2", "evt_3", "evt_4"]) store.accept(id);
  assert.equal(store.size, 3);
  assert.equal(store.accept("evt_1"), true); // pushed out by the bound
  store.forget("evt_4");
  assert.equal(store.accept("evt_4"), true);
  assert.throws(() => store.accept(""), TypeError);
});

test("receiveWebhook: 200 first and on a repeat (handled once), 401 when bad, 500 when the handler fails", async () => {
  const handled = [];
  const store = new MemoryDedupeStore();
  const options = { secrets: [SECRET], store, onEvent: (e) => handled.push(e.id), expectedTenants: ["ten_1"] };
  const d = await delivery("evt_r1");
  assert.equal((await receiveWebhook(d.body, d.headers, options)).status, 200);
  const again = await receiveWebhook(d.body, d.headers, options);
  assert.equal(again.status, 200);
  assert.equal(again.duplicate, true);
  assert.deepEqual(handled, ["evt_r1"]);
  const bad = await receiveWebhook(d.body + " ", d.headers, options);
  assert.deepEqual([bad.status, bad.error], [401, "signature_mismatch"]);
  const foreign = await delivery("evt_r2", "application.submitted", SECRET, "ten_2");
  assert.equal((await receiveWebhook(foreign.body, foreign.headers, options)).error, "unexpected_tenant");
  let fail = true;
  const flaky = { ...options, onEvent: () => { if (fail) throw new Error("db down"); } };
  const f = await delivery("evt_r3");
  assert.equal((await receiveWebhook(f.body, f.headers, flaky)).status, 500);
  fail = false;
  const retried = await receiveWebhook(f.body, f.headers, flaky);
  assert.deepEqual([retried.status, retried.duplicate], [200, false]); // taken again after the failure
});

async function listen(server) {
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  closers.push(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${server.address().port}`;
}

for (const [name, make, path] of [
  ["node:http", (o) => createReceiver(o), "/"],
  ["Express", (o) => createApp(o).listen(0, "127.0.0.1"), "/webhooks/gatehouse"],
]) {
  test(`the ${name} example verifies, dedupes and answers`, async () => {
    const events = [];
    const server = make({ secrets: ["whsec_old" + "A".repeat(40), SECRET], onEvent: (e) => events.push(e) });
    const base = name === "Express"
      ? await new Promise((r) => server.on("listening", () => { closers.push(() => new Promise((c) => server.close(c))); r(`http://127.0.0.1:${server.address().port}`); }))
      : await listen(server);
    const d = await delivery(`evt_${name}`, "application.decision.approved");
    for (let i = 0; i < 2; i += 1) {
      const answer = await fetch(base + path, { method: "POST", headers: d.headers, body: d.body });
      assert.equal(answer.status, 200);
      assert.deepEqual(await answer.json(), { received: true });
    }
    assert.equal(events.length, 1);
    assert.equal(events[0].known, true);
    assert.equal(events[0].type, "application.decision.approved");
    const forged = await fetch(base + path, { method: "POST", headers: d.headers, body: d.body.replace("app_1", "app_9") });
    assert.equal(forged.status, 401);
  });
}
