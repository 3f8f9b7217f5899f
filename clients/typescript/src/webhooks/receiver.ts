/**
 * A framework-neutral receiver: verify, deduplicate, answer (docs/reference/webhooks.md §7.1).
 *
 * `receiveWebhook(body, headers, options)` gives the HTTP status to answer with: 401 for
 * anything that fails verification, 500 when the dedupe store failed (so Gatehouse delivers
 * again), 200 for a new event and for a repeat. Do the business work after answering, or in
 * `onEvent` when it is quick; a throwing `onEvent` forgets the id and answers 500, so the
 * delivery is retried.
 */
import { type DedupeStore } from "./dedupe.js";
import type { WebhookEvent } from "./events.js";
import { SignatureError, verifyWebhook, type HeaderSource, type RawBody, type VerifyOptions } from "./verify.js";

export interface ReceiveOptions extends VerifyOptions {
  store: DedupeStore;
  /** Runs once per event id, after it was accepted. */
  onEvent?: (event: WebhookEvent) => void | Promise<void>;
}

export interface Receipt {
  status: 200 | 401 | 500;
  event: WebhookEvent | null;
  duplicate: boolean;
  /** The SignatureError reason, or `store_failed` / `handler_failed`. */
  error: string | null;
  /** A small JSON body to answer with. */
  body: string;
}

function receipt(status: Receipt["status"], event: WebhookEvent | null, duplicate: boolean, error: string | null): Receipt {
  return { status, event, duplicate, error, body: JSON.stringify({ received: error === null }) };
}

export async function receiveWebhook(body: RawBody, headers: HeaderSource, options: ReceiveOptions): Promise<Receipt> {
  let event: WebhookEvent;
  try {
    event = await verifyWebhook(body, headers, options);
  } catch (error) {
    if (error instanceof SignatureError) return receipt(401, null, false, error.reason);
    throw error;
  }
  let first: boolean;
  try {
    first = await options.store.accept(event.id);
  } catch {
    return receipt(500, event, false, "store_failed");
  }
  if (first && options.onEvent) {
    try {
      await options.onEvent(event);
    } catch {
      await options.store.forget?.(event.id);
      return receipt(500, event, false, "handler_failed");
    }
  }
  return receipt(200, event, !first, null);
}
