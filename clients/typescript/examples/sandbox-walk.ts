/**
 * The first case, end to end, in a sandbox tenant: serve a webhook receiver on a loopback
 * port, register it, create an application, simulate the applicant's submission and the
 * approval, and print the verified events received. The endpoint is removed at the end, so it
 * can be run again (each run makes a new application).
 *
 *   GATEHOUSE_URL=http://127.0.0.1:8001 GATEHOUSE_API_KEY=service_… node build/examples/sandbox-walk.js
 *
 * The server must allow loopback receivers (GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_URLS=true, for
 * development only).
 */
import type { AddressInfo } from "node:net";
import { Gatehouse, type WebhookEvent } from "gatehouse-kyc-client";
import { createReceiver } from "./node-http-receiver.js";

const EXPECTED = 5; // submitted, proposed, status changed, approved, status changed

export async function walk(baseUrl: string, apiKey: string, timeoutMs = 60_000): Promise<WebhookEvent[]> {
  const gh = new Gatehouse({ baseUrl, apiKey });
  const secrets: string[] = [];
  const events: WebhookEvent[] = [];
  let clientId = "";
  const receiver = createReceiver({
    secrets,
    onEvent: (event) => {
      if ("clientId" in event.data && event.data.clientId === clientId) events.push(event);
    },
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/gatehouse`;
  const endpoint = await gh.webhooks.create({ url, events: ["application.*"] });
  secrets.push(endpoint.secret);
  try {
    const run = Date.now().toString(36);
    const app = await gh.createApplication({ email: `ada+${run}@example.test`, externalRef: `sandbox-${run}` });
    clientId = app.clientId;
    await gh.sandbox.simulate(app.clientId, { action: "submit" });
    const approved = await gh.sandbox.simulate(app.clientId, { action: "approve", comment: "Welcome" });
    if (approved.status !== "active") throw new Error(`expected active, got ${approved.status}`);
    const deadline = Date.now() + timeoutMs;
    while (events.length < EXPECTED && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    return events;
  } finally {
    await gh.webhooks.delete(endpoint.id);
    await new Promise((resolve) => receiver.close(resolve));
  }
}

if (process.argv[1]?.endsWith("sandbox-walk.js")) {
  const events = await walk(process.env["GATEHOUSE_URL"] ?? "", process.env["GATEHOUSE_API_KEY"] ?? "");
  for (const event of events) console.log(`${event.type} (${String(event.environment)})`);
}
