// Live tests against a running Gatehouse: set GATEHOUSE_TEST_URL and GATEHOUSE_TEST_STAFF_TOKEN
// (a staff token that may create tenants). They make their own sandbox tenant, API key, intake
// and webhook receiver (the node:http example, on loopback: the server needs
// GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_URLS=true). tests/sdk/test_typescript_sdk.py starts a server
// and runs them in CI.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  AmbiguousResult,
  FailedPrecondition,
  Gatehouse,
  InvalidArgument,
  NotFound,
  isApproved,
} from "gatehouse-kyc-client";
import { createReceiver } from "../build/examples/node-http-receiver.js";
import { walk } from "../build/examples/sandbox-walk.js";

const BASE = process.env.GATEHOUSE_TEST_URL;
const STAFF = process.env.GATEHOUSE_TEST_STAFF_TOKEN;
const skip = !BASE || !STAFF ? "GATEHOUSE_TEST_URL and GATEHOUSE_TEST_STAFF_TOKEN are not set" : false;

async function staff(method, path, body) {
  const answer = await fetch(new URL(path, BASE), {
    method,
    headers: { Authorization: `Bearer ${STAFF}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await answer.json();
  assert.equal(answer.status, 201, `${method} ${path}: ${JSON.stringify(json)}`);
  return json;
}

async function eventually(what, check, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = check();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("against a running Gatehouse", { skip }, () => {
  let gh;
  let apiKey;
  let tenantId;
  const received = [];
  const secrets = [];
  let receiver;
  let receiverUrl;

  before(async () => {
    const tenant = await staff("POST", "/staff/v1/tenants", { name: `TS SDK ${Date.now()}`, environment: "sandbox" });
    tenantId = tenant.tenantId;
    const key = await staff("POST", `/staff/v1/tenants/${tenantId}/api-keys`, {
      name: "typescript sdk",
      scopes: ["applications:write", "applications:read", "webhooks:manage"],
    });
    await staff("POST", `/staff/v1/tenants/${tenantId}/intakes`, { name: "Standard" });
    apiKey = key.apiKey;
    gh = new Gatehouse({ baseUrl: BASE, apiKey, timeout: 60_000, backoffBase: 50 });
    receiver = createReceiver({ secrets, expectedTenants: [tenantId], onEvent: (e) => received.push(e) });
    await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
    receiverUrl = `http://127.0.0.1:${receiver.address().port}/hook`;
  });

  after(() => new Promise((r) => (receiver ? receiver.close(r) : r())));

  test("a first case: provision, link, walk to approval in the sandbox, and hear about it", async () => {
    const endpoint = await gh.webhooks.create({ url: receiverUrl, events: ["*"], description: "TS SDK" });
    assert.match(endpoint.secret, /^whsec_/);
    secrets.push(endpoint.secret);

    const app = await gh.createApplication({ email: "ada@example.test", externalRef: "crm-ts-1" });
    assert.equal(app.created, true);
    assert.match(app.clientId, /^app_/);
    const repeat = await gh.createApplication({ email: "ada@example.test", externalRef: "crm-ts-1" });
    assert.deepEqual([repeat.created, repeat.clientId], [false, app.clientId]);

    const link = await gh.createApplicationLoginSession(app.clientId);
    assert.match(link.loginUrl, /^http/);
    assert.equal(link.clientId, app.clientId);

    await gh.sandbox.simulate(app.clientId, { action: "submit" });
    const approved = await gh.sandbox.simulate(app.clientId, { action: "approve", comment: "Welcome" });
    assert.equal(approved.status, "active");
    assert.ok(isApproved(await gh.getApplication(app.clientId)));
    const actions = (await gh.listDecisions(app.clientId)).map((d) => d.action);
    assert.ok(actions.includes("approved"), actions.join(","));

    const event = await eventually("the approval webhook", () =>
      received.find((e) => e.type === "application.decision.approved" && e.data.clientId === app.clientId),
    );
    assert.equal(event.known, true);
    assert.equal(event.tenantId, tenantId);
    assert.equal(event.environment, "sandbox");
    assert.equal(event.delivery.signatureScheme, "gatehouse");
    await assert.rejects(() => gh.sandbox.simulate(app.clientId, { action: "submit" }), FailedPrecondition);
  });

  test("reads, members and the access lock", async () => {
    const app = await gh.createApplication({ email: "grace@example.test", companyName: "Grace Ltd" });
    const member = await gh.addMember(app.clientId, "alan@example.test");
    assert.equal(member.created, true);
    assert.equal((await gh.addMember(app.clientId, "alan@example.test")).created, false);
    const roster = (await gh.getApplication(app.clientId)).members.map((m) => m.email);
    assert.ok(roster.includes("alan@example.test"));
    await gh.removeMember(app.clientId, member.uid);
    assert.equal((await gh.lock(app.clientId)).access, "locked");
    assert.equal((await gh.unlock(app.clientId)).access, "unlocked");
    assert.ok((await gh.listIntakes()).length >= 1);
    assert.ok(Array.isArray(await gh.getChecklist(app.clientId)));
    assert.deepEqual(await gh.listDocuments(app.clientId), []);
    assert.deepEqual(await gh.listInfoRequests(app.clientId), []);
    const types = (await gh.listEventTypes()).map((t) => t.type);
    assert.ok(types.includes("application.decision.approved"));
    const session = await gh.createLoginSession({ email: "new@example.test", externalRef: "crm-ts-2" });
    assert.match(session.clientId, /^app_/);
  });

  test("errors are typed and carry the request id and details", async () => {
    const missing = await gh.getApplication("app_doesnotexist").catch((e) => e);
    assert.ok(missing instanceof NotFound);
    assert.equal(missing.code, "not-found");
    assert.match(missing.requestId, /^req_/);
    const invalid = await gh.createApplication({ email: "no-at-sign" }).catch((e) => e);
    assert.ok(invalid instanceof InvalidArgument);
    assert.ok(invalid.details.some((d) => d.field === "email"), JSON.stringify(invalid.details));
    assert.equal(invalid instanceof AmbiguousResult, false);
  });

  test("paging and the sweep see every application once", async () => {
    const made = new Set();
    for (let i = 0; i < 5; i += 1) made.add((await gh.createApplication({ email: `p${i}@example.test` })).clientId);
    const seen = [];
    for await (const a of gh.applications({ pageSize: 2 })) seen.push(a.clientId);
    assert.equal(new Set(seen).size, seen.length);
    for (const id of made) assert.ok(seen.includes(id));
    const first = await gh.sweep({ pageSize: 2 });
    assert.ok(first.checkpoint);
    for (const id of made) assert.ok(first.applications.some((a) => a.clientId === id));
    const changed = await gh.createApplication({ email: "late@example.test" });
    const next = await gh.sweep({ since: first.checkpoint, overlap: 1000 });
    assert.ok(next.applications.some((a) => a.clientId === changed.clientId));
    assert.ok(next.checkpoint >= first.checkpoint);
  });

  test("webhook management, a test delivery, and a rotation verified with both secrets", async () => {
    const endpoint = await gh.webhooks.create({ url: receiverUrl, events: ["webhook.test"] });
    secrets.push(endpoint.secret);
    assert.ok((await gh.webhooks.list()).some((e) => e.id === endpoint.id));
    assert.equal((await gh.webhooks.get(endpoint.id)).secret, undefined);
    assert.equal((await gh.webhooks.update(endpoint.id, { description: "renamed" })).description, "renamed");
    await assert.rejects(() => gh.webhooks.update(endpoint.id, { events: ["application.nope"] }), InvalidArgument);
    assert.equal((await gh.webhooks.disable(endpoint.id)).status, "disabled");
    assert.equal((await gh.webhooks.enable(endpoint.id)).status, "enabled");

    const rotated = await gh.webhooks.rotateSecret(endpoint.id);
    assert.notEqual(rotated.secret, endpoint.secret);
    secrets.push(rotated.secret); // the receiver holds both during the rotation
    const tested = await gh.webhooks.test(endpoint.id);
    assert.equal(tested.success, true, JSON.stringify(tested));
    const heard = await eventually("the test event", () =>
      received.find((e) => e.type === "webhook.test" && e.data.endpointId === endpoint.id),
    );
    assert.equal(heard.known, true);

    const deliveries = [];
    for await (const d of gh.webhooks.deliveries(endpoint.id, { limit: 1 })) deliveries.push(d);
    assert.ok(deliveries.every((d) => d.id.startsWith("dlv_")));
    await gh.webhooks.delete(endpoint.id);
    await assert.rejects(() => gh.webhooks.get(endpoint.id), NotFound);
  });

  test("the README's first case (examples/sandbox-walk.ts) hears the five events of an approval", async () => {
    const events = await walk(BASE, apiKey);
    assert.deepEqual(events.map((e) => e.type).sort(), [
      "application.decision.approved",
      "application.decision.proposed",
      "application.status.changed",
      "application.status.changed",
      "application.submitted",
    ]);
    assert.ok(events.every((e) => e.environment === "sandbox" && e.known));
    assert.equal((await gh.webhooks.list()).some((e) => e.url.endsWith("/gatehouse")), false);
  });

  test("a console link", async () => {
    const link = await gh.consoleSessions.create();
    assert.match(link.url, /^http.*\/console/);
    assert.ok(Date.parse(link.expiresAt) > Date.now());
  });
});
