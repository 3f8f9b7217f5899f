// Compile-time checks of the public types (`tsc -p tsconfig.typecheck.json`, run by
// tests/sdk/test_typescript_sdk.py): each `@ts-expect-error` must be an error, and every other
// line must compile, or the check fails.
import {
  Gatehouse,
  RateLimited,
  verifyWebhook,
  type Application,
  type ApplicationSummary,
  type WebhookEvent,
} from "gatehouse-kyc-client";

declare const gh: Gatehouse;
declare const event: WebhookEvent;

export async function calls(): Promise<void> {
  // Nullable request fields may be left out (published as `default: null`).
  const app: Application & { created: boolean } = await gh.createApplication({ email: "a@example.test" });
  // @ts-expect-error the email is required
  await gh.createApplication({ externalRef: "crm-1" });
  // @ts-expect-error a field of the wrong type
  await gh.createApplication({ email: "a@example.test", externalRef: 42 });
  await gh.createApplication({ email: "a@example.test" }, { idempotencyKey: "k-1", timeout: 5_000, signal: AbortSignal.timeout(1_000) });
  const status: string = app.status;
  void status;
  // The page's elements are summaries: no members there.
  const page = await gh.listApplications({ status: "active", limit: 10 });
  const first: ApplicationSummary | undefined = page.data[0];
  // @ts-expect-error a summary has no members
  void first?.members;
  // @ts-expect-error an unknown status filter of listApplications
  await gh.listApplications({ status: "approved" });
  // Sandbox actions: the documented ones, and any newer string.
  await gh.sandbox.simulate(app.clientId, { action: "approve", comment: "ok" });
  await gh.sandbox.simulate(app.clientId, { action: "some_future_action" });
  const endpoint = await gh.webhooks.create({ url: "https://example.test/h", events: ["*"] });
  const secret: string = endpoint.secret;
  const listed = await gh.webhooks.get(endpoint.id);
  // @ts-expect-error only the created endpoint carries its secret
  void listed.secret;
  void secret;
  for await (const summary of gh.applications({ updatedSince: new Date() })) void summary.clientId;
  const { checkpoint } = await gh.sweep({ since: checkpoint0(), overlap: 60_000 });
  const next: string | null = checkpoint;
  void next;
  const error: unknown = null;
  if (error instanceof RateLimited) {
    const wait: number | null = error.retryAfter;
    const id: string | null = error.requestId;
    void wait;
    void id;
  }
}

function checkpoint0(): string {
  return "2026-11-01T00:00:00.000Z";
}

export async function events(): Promise<void> {
  await verifyWebhook(new Uint8Array(), {}, { secrets: ["whsec_x"], expectedTenants: ["ten_1"] });
  if (event.known) {
    if (event.type === "application.decision.rejected") {
      const reason: string | null = event.data.rejectionReason;
      void reason;
    }
    if (event.type === "webhook.test") {
      const endpointId: string = event.data.endpointId;
      void endpointId;
      // @ts-expect-error a test event has no clientId
      void event.data.clientId;
    }
    if (event.type === "application.info_request.raised") {
      const items: number = event.data.items.length;
      void items;
    }
  } else {
    const raw: Record<string, unknown> = event.data;
    const type: string = event.type;
    void raw;
    void type;
  }
}
