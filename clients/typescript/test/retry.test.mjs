// Retry rules of docs/reference/tenant-api.md §5.15 against a scripted loopback server.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, test } from "node:test";
import {
  AbortError,
  AlreadyExists,
  AmbiguousResult,
  FailedPrecondition,
  Gatehouse,
  GatehouseError,
  Gone,
  InvalidArgument,
  NetworkError,
  NotFound,
  PermissionDenied,
  RateLimited,
  ServerError,
  Unauthorized,
  USER_AGENT,
  decide,
  DEFAULT_BACKOFF,
} from "gatehouse-kyc-client";
import { API_KEY, errorBody, scripted } from "./scripted.mjs";

const APP = { clientId: "app_1", status: "pending", externalRef: "crm-1", members: [], updatedAt: "2026-11-01T00:00:00.000Z" };
const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));

async function client(answers, options = {}) {
  const server = await scripted(answers);
  servers.push(server);
  const gh = new Gatehouse({ baseUrl: server.url, apiKey: API_KEY, backoffBase: 1, backoffMax: 5, ...options });
  return { gh, server };
}

test("a write repeated after a 503 carries the same Idempotency-Key", async () => {
  const { gh, server } = await client([{ status: 503, body: errorBody("unavailable") }, { status: 201, body: APP }]);
  const app = await gh.createApplication({ email: "ada@example.test", externalRef: "crm-1" });
  assert.equal(app.clientId, "app_1");
  assert.equal(app.created, true);
  const [first, second] = server.requests;
  assert.match(first.headers["idempotency-key"], /^gh-[0-9a-f]{32}$/);
  assert.equal(second.headers["idempotency-key"], first.headers["idempotency-key"]);
  assert.deepEqual(first.body, { email: "ada@example.test", externalRef: "crm-1" });
  assert.equal(first.headers.authorization, `Bearer ${API_KEY}`);
  assert.equal(first.headers["user-agent"], USER_AGENT);
});

test("a repeat answered 200 is not created", async () => {
  const { gh } = await client([{ status: 200, body: APP }]);
  assert.equal((await gh.createApplication({ email: "ada@example.test" })).created, false);
});

test("the caller's own Idempotency-Key is sent and reused", async () => {
  const { gh, server } = await client(["drop", { status: 201, body: APP }]);
  await gh.createApplication({ email: "ada@example.test" }, { idempotencyKey: "order-42" });
  assert.deepEqual(server.requests.map((r) => r.headers["idempotency-key"]), ["order-42", "order-42"]);
  await assert.rejects(() => gh.createApplication({ email: "a@b" }, { idempotencyKey: "" }), TypeError);
  await assert.rejects(() => gh.createApplication({ email: "a@b" }, { idempotencyKey: "é" }), TypeError);
});

test("a 429 waits for Retry-After and repeats", async () => {
  const { gh, server } = await client([
    { status: 429, body: errorBody("resource-exhausted"), headers: { "Retry-After": "1" } },
    { status: 200, body: APP },
  ]);
  const started = Date.now();
  await gh.getApplication("app_1");
  assert.ok(Date.now() - started >= 950, "waited at least the Retry-After second");
  assert.equal(server.requests.length, 2);
});

test("a Retry-After beyond maxRetryAfter is thrown as RateLimited, not waited for", async () => {
  const { gh, server } = await client(
    [{ status: 429, body: errorBody("resource-exhausted"), headers: { "Retry-After": "120" } }],
    { maxRetryAfter: 60_000 },
  );
  const error = await gh.getApplication("app_1").catch((e) => e);
  assert.ok(error instanceof RateLimited);
  assert.equal(error.retryAfter, 120);
  assert.equal(server.requests.length, 1);
});

test("decide honours Retry-After and backs off with jitter otherwise", () => {
  const base = { safety: "read", hasKey: false, canReconcile: false, retriesDone: 0, maxRetries: 3, backoff: DEFAULT_BACKOFF };
  assert.deepEqual(decide({ ...base, status: 429, retryAfter: 2000 }), { action: "retry", delay: 2000 });
  const d = decide({ ...base, status: 429, retriesDone: 2, random: () => 0 });
  assert.equal(d.delay, 1000); // 500 * 2^2 = 2000, jitter down to half
  assert.equal(decide({ ...base, status: 429, retriesDone: 3 }).action, "raise");
  assert.equal(decide({ ...base, status: 503, safety: "never" }).action, "ambiguous");
  assert.equal(decide({ ...base, status: 503, safety: "keyed", canReconcile: true }).action, "reconcile");
  assert.equal(decide({ ...base, status: 400 }).action, "raise");
  assert.equal(decide({ ...base, status: 409, code: "aborted" }).action, "retry");
});

test("login sessions are never repeated after an ambiguous failure", async () => {
  const { gh, server } = await client([{ status: 502, body: errorBody("unavailable") }]);
  const error = await gh.createLoginSession({ email: "ada@example.test" }).catch((e) => e);
  assert.ok(error instanceof AmbiguousResult);
  assert.equal(server.requests.length, 1);
  assert.equal(error.idempotencyKey, server.requests[0].headers["idempotency-key"]);
  assert.ok(error.cause instanceof ServerError);
  assert.equal(error.status, 502);
});

test("a secret rotation whose connection dropped is AmbiguousResult; repeating with its key replays", async () => {
  const rotated = { secret: "whsec_x", previousSecretExpiresAt: "2026-11-27T00:00:00.000Z" };
  const { gh, server } = await client(["drop", { status: 200, body: rotated }]);
  const error = await gh.webhooks.rotateSecret("we_1").catch((e) => e);
  assert.ok(error instanceof AmbiguousResult);
  assert.ok(error.cause instanceof NetworkError);
  assert.equal(server.requests.length, 1);
  const again = await gh.webhooks.rotateSecret("we_1", { idempotencyKey: error.idempotencyKey });
  assert.equal(again.secret, "whsec_x");
  assert.equal(server.requests[1].headers["idempotency-key"], error.idempotencyKey);
});

test("a keyed write whose retries run out is AmbiguousResult", async () => {
  const { gh, server } = await client(
    [{ status: 500 }, { status: 500 }, { status: 500 }],
    { maxRetries: 2 },
  );
  const error = await gh.webhooks.create({ url: "https://example.test/h", events: ["webhook.test"] }).catch((e) => e);
  assert.ok(error instanceof AmbiguousResult);
  assert.equal(server.requests.length, 3);
  assert.equal(new Set(server.requests.map((r) => r.headers["idempotency-key"])).size, 1);
});

test("reads repeat after 5xx, then throw ServerError", async () => {
  const { gh, server } = await client([{ status: 500 }, { status: 500 }], { maxRetries: 1 });
  const error = await gh.listIntakes().catch((e) => e);
  assert.ok(error instanceof ServerError);
  assert.equal(server.requests.length, 2);
});

test("without a key, an ambiguous create reads the list by externalRef and finds it", async () => {
  const { gh, server } = await client([
    { status: 503 },
    { status: 200, body: { data: [APP], nextCursor: null, hasMore: false } },
  ]);
  const app = await gh.createApplication({ email: "ada@example.test", externalRef: "  crm-1 " }, { idempotent: false });
  assert.equal(app.clientId, "app_1");
  assert.equal(app.created, false);
  assert.equal(server.requests[0].headers["idempotency-key"], undefined);
  assert.equal(server.requests[1].method, "GET");
  assert.match(server.requests[1].url, /externalRef=crm-1/);
});

test("without a key or externalRef, an ambiguous create is AmbiguousResult", async () => {
  const { gh } = await client([{ status: 503 }]);
  const error = await gh.createApplication({ email: "ada@example.test" }, { idempotent: false }).catch((e) => e);
  assert.ok(error instanceof AmbiguousResult);
  assert.equal(error.idempotencyKey, null);
});

test("errors are typed and carry code, requestId and details; 4xx is not repeated", async () => {
  const details = [{ field: "email", issue: "must contain @" }];
  const cases = [
    [{ status: 400, body: errorBody("invalid-argument", "bad email", details) }, InvalidArgument],
    [{ status: 400, body: errorBody("failed-precondition") }, FailedPrecondition],
    [{ status: 401, body: errorBody("unauthorized") }, Unauthorized],
    [{ status: 403, body: errorBody("permission-denied") }, PermissionDenied],
    [{ status: 404, body: errorBody("not-found") }, NotFound],
    [{ status: 409, body: errorBody("already-exists") }, AlreadyExists],
    [{ status: 410, body: errorBody("failed-precondition") }, Gone],
    [{ status: 418, body: errorBody("teapot") }, GatehouseError],
  ];
  for (const [answer, cls] of cases) {
    const { gh, server } = await client([answer]);
    const error = await gh.createApplication({ email: "x@example.test" }).catch((e) => e);
    assert.ok(error instanceof cls, `${answer.status} ${cls.name}: got ${error}`);
    assert.equal(error.status, answer.status);
    assert.equal(error.code, answer.body.error.code);
    assert.equal(error.requestId, "req_test");
    assert.equal(server.requests.length, 1);
  }
  const { gh } = await client([{ status: 400, body: errorBody("invalid-argument", "bad email", details) }]);
  const error = await gh.createApplication({ email: "x" }).catch((e) => e);
  assert.deepEqual(error.details, details);
  assert.equal(error.message, "bad email");
  assert.ok(error instanceof FailedPrecondition === false);
});

test("a connection that never opened is repeated, then NetworkError (not sent)", async () => {
  const probe = createServer();
  await new Promise((r) => probe.listen(0, "127.0.0.1", r));
  const { port } = probe.address();
  await new Promise((r) => probe.close(r));
  const gh = new Gatehouse({ baseUrl: `http://127.0.0.1:${port}`, apiKey: API_KEY, maxRetries: 2, backoffBase: 1 });
  const error = await gh.createLoginSession({ email: "ada@example.test" }).catch((e) => e);
  // Nothing was sent, so even a login session may be repeated; after the retries: NetworkError.
  assert.ok(error instanceof NetworkError, String(error));
  assert.equal(error.sent, false);
});

test("a per-request timeout gives up an attempt; a read is repeated", async () => {
  const { gh, server } = await client([{ status: 200, body: APP, delay: 1500 }, { status: 200, body: APP }]);
  const app = await gh.getApplication("app_1", { timeout: 200 });
  assert.equal(app.clientId, "app_1");
  assert.equal(server.requests.length, 2);
});

test("a timed-out login session is AmbiguousResult", async () => {
  const { gh } = await client([{ status: 200, body: {}, delay: 1500 }]);
  const error = await gh.createLoginSession({ email: "a@example.test" }, { timeout: 200 }).catch((e) => e);
  assert.ok(error instanceof AmbiguousResult);
  assert.match(error.cause.message, /timed out/);
});

test("an AbortSignal gives the call up without retrying", async () => {
  const { gh, server } = await client([{ status: 200, body: APP, delay: 1500 }, { status: 200, body: APP }]);
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error("user left")), 100);
  const error = await gh.createApplication({ email: "a@example.test" }, { signal: controller.signal }).catch((e) => e);
  assert.ok(error instanceof AbortError, String(error));
  assert.equal(error.idempotencyKey, server.requests[0].headers["idempotency-key"]);
  assert.equal(server.requests.length, 1);
  const already = AbortSignal.abort();
  await assert.rejects(() => gh.getApplication("app_1", { signal: already }), AbortError);
});

test("identifiers are path segments, percent-encoded; empty ones are refused", async () => {
  const { gh, server } = await client([{ status: 200, body: { data: [] } }]);
  await gh.listDecisions("app/../x");
  assert.equal(server.requests[0].url, "/v1/applications/app%2F..%2Fx/decisions");
  await assert.rejects(() => gh.getApplication(""), TypeError);
});

test("the client never shows its API key", () => {
  const gh = new Gatehouse({ baseUrl: "http://127.0.0.1:1/", apiKey: API_KEY });
  assert.equal(JSON.stringify(gh).includes(API_KEY), false);
  assert.equal(gh.baseUrl, "http://127.0.0.1:1");
});

test("a caller's fetch and extra headers are used for every attempt", async () => {
  const server = await scripted([{ status: 503 }, { status: 200, body: APP }]);
  servers.push(server);
  const seen = [];
  const gh = new Gatehouse({
    baseUrl: server.url,
    apiKey: API_KEY,
    backoffBase: 1,
    headers: { "X-Trace": "t-1" },
    fetch: (input, init) => {
      seen.push(init.method);
      return fetch(input, init);
    },
  });
  await gh.getApplication("app_1");
  assert.deepEqual(seen, ["GET", "GET"]);
  assert.deepEqual(server.requests.map((r) => r.headers["x-trace"]), ["t-1", "t-1"]);
});
