/**
 * The shapes of the tenant API, named from the types generated from /openapi.json
 * (src/generated/openapi.ts). Answers are the JSON objects as sent: fields this version does
 * not know are kept, and status values are plain strings so an unfamiliar one is never
 * mistaken for approval (only exactly `active` is; see `isApproved`).
 */
import type { components, operations } from "./generated/openapi.js";

type Schemas = components["schemas"];

/**
 * A request body whose nullable fields may be left out.
 *
 * The server publishes optional request fields as nullable with `default: null`, which
 * openapi-typescript reads as required. A field that may be null may also be omitted (the
 * server treats both the same), so this makes every nullable field optional; once the document
 * marks them optional itself, the type is unchanged.
 */
export type RequestBody<T> = {
  [K in keyof T as null extends T[K] ? K : never]?: T[K];
} & {
  [K in keyof T as null extends T[K] ? never : K]: T[K];
};

export type Application = Schemas["Application"];
/** A list element: `members`, `decision` and `openInfoRequest` are left out of lists. */
export type ApplicationSummary = Schemas["ApplicationSummary"];
export type ApplicationPage = Schemas["ApplicationPage"];
export type Decision = Schemas["Decision"];
export type OpenInfoRequest = Schemas["OpenInfoRequest"];
export type Member = Schemas["Member"];
export type InfoRequest = Schemas["InfoRequest"];
export type InfoRequestItem = Schemas["InfoRequestItem"];
export type Intake = Schemas["IntakeLabel"];
export type ChecklistItem = Schemas["ChecklistItem"];
export type Document = Schemas["Document"];
export type LoginSession = Schemas["LoginSession"];
export type AccessState = Schemas["AccessState"];
export type WebhookEndpoint = Schemas["WebhookEndpoint"];
/** The answer of `webhooks.create`: the endpoint with its `secret`, shown once. */
export type CreatedWebhookEndpoint = Schemas["CreatedWebhookEndpoint"];
export type RotatedSecret = Schemas["RotatedSecret"];
export type WebhookTestResult = Schemas["WebhookTestResult"];
export type Delivery = Schemas["Delivery"];
export type DeliveryPage = Schemas["DeliveryPage"];
export type ConsoleSession = Schemas["ConsoleLinkView"];
export type EventTypeInfo = Schemas["EventTypeInfo"];

/** Status values the server documents; any other string may arrive and is kept. */
export type ApplicationStatus = NonNullable<
  NonNullable<operations["listApplications"]["parameters"]["query"]>["status"]
>;
export type DeliveryStatus = Schemas["DeliveryStatus"];

export type ProvisionParams = RequestBody<Schemas["ProvisionBody"]>;
export type LoginSessionParams = RequestBody<Schemas["LoginSessionBody"]>;
export type ApplicationLoginSessionParams = RequestBody<Schemas["ReissueBody"]>;
/** A sandbox move: `submit`, `request_info`, `respond`, `approve`, `reject`, `hold`, `release`. */
export type SimulateAction = Schemas["SimulateBody"]["action"];
/** The action is sent as given, so a server that learns new actions needs no new client. */
export type SimulateParams = Omit<RequestBody<Schemas["SimulateBody"]>, "action"> & {
  action: SimulateAction | (string & {});
};
export type CreateWebhookParams = RequestBody<Schemas["CreateWebhookBody"]>;
export type UpdateWebhookParams = RequestBody<Schemas["UpdateWebhookBody"]>;

export type ListApplicationsParams = NonNullable<operations["listApplications"]["parameters"]["query"]>;
export type ListDeliveriesParams = NonNullable<
  operations["listWebhookDeliveries"]["parameters"]["query"]
>;

/** True for exactly `active`: no other status, known or unknown, is approval. */
export function isApproved(application: { status: string }): boolean {
  return application.status === "active";
}

/** A created answer tells 201 (made now) from 200 (a repeat that found it). */
export type Created<T> = T & { readonly created: boolean };
