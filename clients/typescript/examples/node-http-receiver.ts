/**
 * A webhook receiver on a plain `node:http` server: verify the raw body against the secrets
 * you hold (two during a rotation), accept each event id once, answer fast.
 *
 *   GATEHOUSE_WEBHOOK_SECRETS=whsec_new,whsec_old GATEHOUSE_TENANT_ID=ten_... \
 *     node build/examples/node-http-receiver.js
 */
import { createServer, type Server } from "node:http";
import { MemoryDedupeStore, receiveWebhook, type DedupeStore, type WebhookEvent } from "gatehouse-kyc-client";

export interface ReceiverOptions {
  secrets: string[];
  expectedTenants?: string[];
  store?: DedupeStore;
  onEvent: (event: WebhookEvent) => void | Promise<void>;
}

export function createReceiver(options: ReceiverOptions): Server {
  const store = options.store ?? new MemoryDedupeStore();
  return createServer((request, response) => {
    if (request.method !== "POST") {
      response.writeHead(405, { Allow: "POST" }).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      // The raw bytes, exactly as sent: never a parsed and re-serialized body.
      const body = Buffer.concat(chunks);
      receiveWebhook(body, request.headers, {
        secrets: options.secrets,
        expectedTenants: options.expectedTenants,
        store,
        onEvent: options.onEvent,
      })
        .then((receipt) => {
          response.writeHead(receipt.status, { "Content-Type": "application/json" }).end(receipt.body);
        })
        .catch(() => response.writeHead(500).end());
    });
  });
}

function handle(event: WebhookEvent): void {
  if (!event.known) {
    console.log(`event of a type this version does not know: ${event.type}`);
    return;
  }
  switch (event.type) {
    case "application.decision.approved":
      console.log(`approved: ${event.data.clientId}`); // only exactly "active" is approval
      break;
    case "application.info_request.raised":
      console.log(`information requested: ${event.data.items.length} items`);
      break;
    default:
      console.log(`${event.type} for ${"clientId" in event.data ? event.data.clientId : "-"}`);
  }
}

if (process.argv[1]?.endsWith("node-http-receiver.js")) {
  const secrets = (process.env["GATEHOUSE_WEBHOOK_SECRETS"] ?? "").split(",").filter(Boolean);
  const tenant = process.env["GATEHOUSE_TENANT_ID"];
  createReceiver({ secrets, expectedTenants: tenant ? [tenant] : undefined, onEvent: handle }).listen(
    Number(process.env["PORT"] ?? 8080),
  );
}
