/**
 * A webhook receiver in Express. The route takes the body raw (`express.raw`), never through
 * `express.json()`: the signature covers the exact bytes sent.
 *
 *   GATEHOUSE_WEBHOOK_SECRETS=whsec_new,whsec_old GATEHOUSE_TENANT_ID=ten_... \
 *     node build/examples/express-receiver.js
 */
import express, { type Express } from "express";
import { MemoryDedupeStore, receiveWebhook, type DedupeStore, type WebhookEvent } from "gatehouse-kyc-client";

export interface ExpressReceiverOptions {
  secrets: string[];
  expectedTenants?: string[];
  store?: DedupeStore;
  onEvent: (event: WebhookEvent) => void | Promise<void>;
}

export function createApp(options: ExpressReceiverOptions): Express {
  const store = options.store ?? new MemoryDedupeStore();
  const app = express();
  app.post("/webhooks/gatehouse", express.raw({ type: "*/*", limit: "1mb" }), (req, res, next) => {
    const body: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    receiveWebhook(body, req.headers, {
      secrets: options.secrets,
      expectedTenants: options.expectedTenants,
      store,
      onEvent: options.onEvent,
    })
      .then((receipt) => res.status(receipt.status).type("application/json").send(receipt.body))
      .catch(next);
  });
  return app;
}

if (process.argv[1]?.endsWith("express-receiver.js")) {
  const secrets = (process.env["GATEHOUSE_WEBHOOK_SECRETS"] ?? "").split(",").filter(Boolean);
  const tenant = process.env["GATEHOUSE_TENANT_ID"];
  createApp({
    secrets,
    expectedTenants: tenant ? [tenant] : undefined,
    onEvent: (event) => {
      if (event.known && event.type === "application.decision.approved") console.log(`approved: ${event.data.clientId}`);
    },
  }).listen(Number(process.env["PORT"] ?? 8080));
}
