// Cursor paging and the updatedSince sweep (docs/reference/tenant-api.md §5.11) against a
// scripted loopback server.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { Gatehouse } from "gatehouse-kyc-client";
import { API_KEY, scripted } from "./scripted.mjs";

const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));

const app = (id, updatedAt, status = "pending") => ({ clientId: id, status, updatedAt, externalRef: null });
const page = (data, nextCursor = null) => ({ body: { data, nextCursor, hasMore: nextCursor !== null } });

async function client(answers) {
  const server = await scripted(answers);
  servers.push(server);
  return { gh: new Gatehouse({ baseUrl: server.url, apiKey: API_KEY }), server };
}

test("applications() follows the cursor under fixed filters and yields each clientId once", async () => {
  const { gh, server } = await client([
    page([app("app_3", "2026-11-03T00:00:00.000Z"), app("app_2", "2026-11-02T00:00:00.000Z")], "c1"),
    page([app("app_2", "2026-11-02T00:00:00.000Z"), app("app_1", "2026-11-01T00:00:00.000Z")]),
  ]);
  const ids = [];
  for await (const a of gh.applications({ status: "pending", pageSize: 2 })) ids.push(a.clientId);
  assert.deepEqual(ids, ["app_3", "app_2", "app_1"]);
  const [first, second] = server.requests.map((r) => new URL(r.url, "http://x").searchParams);
  assert.equal(first.get("status"), "pending");
  assert.equal(first.get("limit"), "2");
  assert.equal(first.get("cursor"), null);
  assert.equal(second.get("cursor"), "c1");
  assert.equal(second.get("status"), "pending");
});

test("breaking out of the loop stops paging", async () => {
  const { gh, server } = await client([page([app("app_2", "2026-11-02T00:00:00.000Z")], "c1"), page([])]);
  for await (const a of gh.applications()) {
    assert.equal(a.clientId, "app_2");
    break;
  }
  assert.equal(server.requests.length, 1);
});

test("a sweep starts at since - overlap, catches up with what changed meanwhile, dedupes, and hands out the checkpoint", async () => {
  const { gh, server } = await client([
    // Pass 1, two pages; app_1 is updated between them and would be missed without a catch-up.
    page([app("app_3", "2026-11-10T10:00:03.000Z"), app("app_2", "2026-11-10T10:00:02.000Z")], "c1"),
    page([]),
    // Pass 2, from the newest seen minus the overlap: app_1's new version, app_3 again.
    page([app("app_1", "2026-11-10T10:00:05.000Z", "active"), app("app_3", "2026-11-10T10:00:03.000Z")]),
    // Pass 3 brings nothing new: the sweep ends.
    page([app("app_1", "2026-11-10T10:00:05.000Z", "active")]),
  ]);
  const result = await gh.sweep({ since: "2026-11-10T10:00:00.000Z", overlap: 60_000, pageSize: 2 });
  assert.deepEqual(result.applications.map((a) => a.clientId), ["app_1", "app_3", "app_2"]);
  assert.equal(result.applications[0].status, "active");
  assert.equal(result.checkpoint, "2026-11-10T10:00:05.000Z");
  const windows = server.requests.map((r) => new URL(r.url, "http://x").searchParams.get("updatedSince"));
  assert.deepEqual(windows, [
    "2026-11-10T09:59:00.000Z",
    "2026-11-10T09:59:00.000Z",
    "2026-11-10T09:59:03.000Z",
    "2026-11-10T09:59:05.000Z",
  ]);
});

test("a sweep that sees nothing keeps its since as the checkpoint; without since it lists everything", async () => {
  const { gh, server } = await client([page([]), page([])]);
  const result = await gh.sweep({ since: new Date("2026-11-10T10:00:00Z") });
  assert.deepEqual(result, { applications: [], checkpoint: "2026-11-10T10:00:00.000Z" });
  const everything = await gh.sweep();
  assert.deepEqual(everything, { applications: [], checkpoint: null });
  assert.equal(new URL(server.requests[1].url, "http://x").searchParams.get("updatedSince"), null);
  await assert.rejects(() => gh.sweep({ since: "2026-11-10T10:00:00" }), TypeError);
  await assert.rejects(() => gh.sweep({ overlap: -1 }), TypeError);
});

test("webhooks.deliveries() follows the cursor", async () => {
  const d = (id) => ({ id, eventId: "evt", eventType: "webhook.test", status: "succeeded", attempts: 1 });
  const { gh, server } = await client([page([d("dlv_1"), d("dlv_2")], "c1"), page([d("dlv_3")])]);
  const ids = [];
  for await (const delivery of gh.webhooks.deliveries("we_1", { status: "succeeded", limit: 2 })) ids.push(delivery.id);
  assert.deepEqual(ids, ["dlv_1", "dlv_2", "dlv_3"]);
  assert.match(server.requests[1].url, /^\/v1\/webhooks\/we_1\/deliveries\?.*cursor=c1/);
});
