/**
 * Webhook event envelopes and their typed payloads (docs/reference/webhooks.md §6).
 *
 * `KnownEvent` is a union discriminated by `type`; an event type this version does not know is
 * an `UnknownEvent` with its `data` kept whole, never an error. Status values are kept as sent:
 * only exactly `active` is approval.
 */
import type { components } from "../generated/openapi.js";

type Schemas = components["schemas"];

/** The envelope fields every event carries. */
export interface EventEnvelope<T extends string, D> {
  id: string;
  type: T;
  apiVersion?: string;
  occurredAt?: string;
  tenantId?: string;
  /** `live` or `sandbox`; a production receiver should not act on sandbox events. */
  environment?: "live" | "sandbox" | (string & {});
  idempotencyKey?: string;
  data: D;
  [field: string]: unknown;
}

export type ApplicationEventData = Schemas["ApplicationEventData"];
export type StatusChangedData = Schemas["StatusChangedData"];
export type DecisionEventData = Schemas["DecisionEventData"];
export type RejectedEventData = Schemas["RejectedEventData"];
export type InfoRequestEventData = Schemas["InfoRequestEventData"];
export type WebhookTestData = Schemas["WebhookTestData"];

/** The data type of each event type of the catalogue. */
export interface EventDataByType {
  "application.submitted": ApplicationEventData;
  "application.status.changed": StatusChangedData;
  "application.decision.proposed": DecisionEventData;
  "application.decision.approved": DecisionEventData;
  "application.decision.proposal_rejected": DecisionEventData;
  "application.decision.rejected": RejectedEventData;
  "application.decision.hold": DecisionEventData;
  "application.info_request.raised": InfoRequestEventData;
  "application.info_request.responded": InfoRequestEventData;
  "application.info_request.closed": InfoRequestEventData;
  "application.info_request.reminder": InfoRequestEventData;
  "webhook.test": WebhookTestData;
}

export type EventType = keyof EventDataByType;

export const EVENT_TYPES: readonly EventType[] = Object.freeze([
  "application.submitted",
  "application.status.changed",
  "application.decision.proposed",
  "application.decision.approved",
  "application.decision.proposal_rejected",
  "application.decision.rejected",
  "application.decision.hold",
  "application.info_request.raised",
  "application.info_request.responded",
  "application.info_request.closed",
  "application.info_request.reminder",
  "webhook.test",
]);

export type KnownEvent = { [T in EventType]: EventEnvelope<T, EventDataByType[T]> & { known: true } }[EventType];

/** An event of a type this version does not know: `data` is kept whole. */
export type UnknownEvent = EventEnvelope<string, Record<string, unknown>> & { known: false };

/** Which header set `verifyWebhook` checked. */
export type SignatureScheme = "gatehouse" | "standard-webhooks";

/** What the delivery said beside the body. */
export interface DeliveryInfo {
  /** `Gatehouse-Attempt` (1 for the first), when sent. */
  attempt: number | null;
  /** The verified timestamp, Unix seconds. */
  timestamp: number;
  signatureScheme: SignatureScheme;
}

/** A verified event: narrow on `known` and then on `type`. */
export type WebhookEvent = (KnownEvent | UnknownEvent) & { delivery: DeliveryInfo };

const KNOWN = new Set<string>(EVENT_TYPES);

export function isKnownEventType(type: string): type is EventType {
  return KNOWN.has(type);
}

/**
 * The event from a parsed body. This checks nothing: use `verifyWebhook` on deliveries, or
 * this on bodies you verified and stored yourself.
 */
export function parseEvent(body: Record<string, unknown>, delivery: DeliveryInfo): WebhookEvent {
  const type = typeof body["type"] === "string" ? body["type"] : "";
  const data = typeof body["data"] === "object" && body["data"] !== null && !Array.isArray(body["data"]) ? body["data"] : {};
  return { ...body, id: String(body["id"] ?? ""), type, data, known: isKnownEventType(type), delivery } as WebhookEvent;
}
