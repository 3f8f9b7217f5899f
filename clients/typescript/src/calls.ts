/**
 * One `Call` per `/v1` route (docs/reference/tenant-api.md §5, docs/reference/webhooks.md §4):
 * what to send, how to read the answer, and how safe the call is to repeat.
 */
import { idempotencyKeyFor, segment, type Call, type WriteOptions } from "./core.js";
import type {
  AccessState,
  Application,
  ApplicationLoginSessionParams,
  ApplicationPage,
  ChecklistItem,
  ConsoleSession,
  Created,
  CreatedWebhookEndpoint,
  CreateWebhookParams,
  Decision,
  DeliveryPage,
  Document,
  EventTypeInfo,
  InfoRequest,
  Intake,
  ListApplicationsParams,
  ListDeliveriesParams,
  LoginSession,
  LoginSessionParams,
  Member,
  ProvisionParams,
  RotatedSecret,
  SimulateParams,
  UpdateWebhookParams,
  WebhookEndpoint,
  WebhookTestResult,
} from "./models.js";

const EXTERNAL_REF_MAX = 200;

function object<T>(body: unknown): T {
  return (typeof body === "object" && body !== null ? body : {}) as T;
}

function dataOf<T>(body: unknown): T[] {
  const data = (object<{ data?: unknown }>(body)).data;
  return Array.isArray(data) ? (data as T[]) : [];
}

function pageOf<P extends { data: unknown[]; nextCursor: string | null; hasMore: boolean }>(body: unknown): P {
  const page = object<Partial<P>>(body);
  return {
    ...page,
    data: Array.isArray(page.data) ? page.data : [],
    nextCursor: typeof page.nextCursor === "string" ? page.nextCursor : null,
    hasMore: page.hasMore === true,
  } as P;
}

function created<T>(status: number, body: unknown): Created<T> {
  return Object.assign(object<T>(body) as object, { created: status === 201 }) as Created<T>;
}

function appPath(clientId: string, ...rest: string[]): string {
  return ["/v1/applications", segment(clientId), ...rest].join("/");
}

function hookPath(id: string, ...rest: string[]): string {
  return ["/v1/webhooks", segment(id), ...rest].join("/");
}

function dropUndefined(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
}

function requireEmail(email: unknown): void {
  if (typeof email !== "string" || email === "") throw new TypeError("email is required");
}

export function listApplications(params: ListApplicationsParams = {}): Call<ApplicationPage> {
  return {
    method: "GET",
    path: "/v1/applications",
    safety: "read",
    parse: (_s, b) => pageOf<ApplicationPage>(b),
    query: { ...params },
  };
}

export function createApplication(params: ProvisionParams, options?: WriteOptions): Call<Created<Application>> {
  requireEmail(params.email);
  const key = idempotencyKeyFor(options);
  const ref = params.externalRef?.trim().slice(0, EXTERNAL_REF_MAX);
  return {
    method: "POST",
    path: "/v1/applications",
    safety: "keyed",
    parse: (s, b) => created<Application>(s, b),
    body: dropUndefined({ ...params }),
    idempotencyKey: key,
    // Sent without a key, an ambiguous failure reads the list by externalRef before repeating.
    reconcile:
      key === null && ref
        ? {
            read: listApplications({ externalRef: ref, limit: 1 }) as Call<unknown>,
            settle: (page) => {
              const found = (page as ApplicationPage).data.find((a) => a.externalRef === ref);
              return found ? { value: Object.assign(found, { created: false }) as unknown as Created<Application> } : null;
            },
          }
        : null,
  };
}

export function createLoginSession(params: LoginSessionParams, options?: WriteOptions): Call<LoginSession> {
  requireEmail(params.email);
  return {
    method: "POST",
    path: "/v1/login-sessions",
    safety: "never",
    parse: (_s, b) => object<LoginSession>(b),
    body: dropUndefined({ ...params }),
    idempotencyKey: idempotencyKeyFor({ ...options, idempotent: true }),
  };
}

export function createApplicationLoginSession(
  clientId: string,
  params: ApplicationLoginSessionParams = {},
  options?: WriteOptions,
): Call<LoginSession> {
  return {
    method: "POST",
    path: appPath(clientId, "login-sessions"),
    safety: "never",
    parse: (_s, b) => object<LoginSession>(b),
    body: dropUndefined({ ...params }),
    idempotencyKey: idempotencyKeyFor({ ...options, idempotent: true }),
  };
}

export function getApplication(clientId: string): Call<Application> {
  return { method: "GET", path: appPath(clientId), safety: "read", parse: (_s, b) => object<Application>(b) };
}

export function addMember(clientId: string, email: string, options?: WriteOptions): Call<Created<Member>> {
  requireEmail(email);
  return {
    method: "POST",
    path: appPath(clientId, "members"),
    safety: "repeatable",
    parse: (s, b) => created<Member>(s, b),
    body: { email },
    idempotencyKey: idempotencyKeyFor(options),
  };
}

export function removeMember(
  clientId: string,
  uid: string,
  params: { newOwnerUid?: string } = {},
  options?: WriteOptions,
): Call<void> {
  const key = idempotencyKeyFor(options);
  return {
    method: "DELETE",
    path: appPath(clientId, "members", segment(uid)),
    safety: "keyed",
    parse: () => undefined,
    query: { newOwnerUid: params.newOwnerUid },
    idempotencyKey: key,
    // A repeat answers 400 once the member is gone: without a key, read the roster first.
    reconcile:
      key === null
        ? {
            read: getApplication(clientId) as Call<unknown>,
            settle: (app) => {
              const members = (app as Partial<Application>).members;
              return Array.isArray(members) && members.every((m) => m.uid !== uid) ? { value: undefined } : null;
            },
          }
        : null,
  };
}

export function setAccess(clientId: string, action: "lock" | "unlock", options?: WriteOptions): Call<AccessState> {
  return {
    method: "POST",
    path: appPath(clientId, action),
    safety: "repeatable",
    parse: (_s, b) => object<AccessState>(b),
    body: {},
    idempotencyKey: idempotencyKeyFor(options),
  };
}

function listOf<T>(path: string): Call<T[]> {
  return { method: "GET", path, safety: "read", parse: (_s, b) => dataOf<T>(b) };
}

export const listInfoRequests = (clientId: string): Call<InfoRequest[]> =>
  listOf<InfoRequest>(appPath(clientId, "info-requests"));
export const listDecisions = (clientId: string): Call<Decision[]> =>
  listOf<Decision>(appPath(clientId, "decisions"));
export const getChecklist = (clientId: string): Call<ChecklistItem[]> =>
  listOf<ChecklistItem>(appPath(clientId, "checklist"));
export const listDocuments = (clientId: string): Call<Document[]> =>
  listOf<Document>(appPath(clientId, "documents"));
export const listIntakes = (): Call<Intake[]> => listOf<Intake>("/v1/intakes");
export const listEventTypes = (): Call<EventTypeInfo[]> => listOf<EventTypeInfo>("/v1/event-types");

export function simulate(clientId: string, params: SimulateParams, options?: WriteOptions): Call<Application> {
  if (typeof params.action !== "string" || (params.action as string) === "") throw new TypeError("action is required");
  return {
    method: "POST",
    path: ["/v1/sandbox/applications", segment(clientId), "simulate"].join("/"),
    safety: "keyed",
    parse: (_s, b) => object<Application>(b),
    body: dropUndefined({ ...params }),
    idempotencyKey: idempotencyKeyFor(options),
  };
}

export function createConsoleSession(options?: WriteOptions): Call<ConsoleSession> {
  return {
    method: "POST",
    path: "/v1/console-sessions",
    safety: "keyed",
    parse: (_s, b) => object<ConsoleSession>(b),
    body: {},
    idempotencyKey: idempotencyKeyFor(options),
  };
}

function checkEvents(events: unknown): void {
  if (events !== undefined && events !== null && !Array.isArray(events)) {
    throw new TypeError("events is a list of event types");
  }
}

export function createWebhook(params: CreateWebhookParams, options?: WriteOptions): Call<CreatedWebhookEndpoint> {
  checkEvents(params.events);
  return {
    method: "POST",
    path: "/v1/webhooks",
    safety: "keyed",
    parse: (_s, b) => object<CreatedWebhookEndpoint>(b),
    body: dropUndefined({ ...params }),
    idempotencyKey: idempotencyKeyFor(options),
  };
}

export const listWebhooks = (): Call<WebhookEndpoint[]> => listOf<WebhookEndpoint>("/v1/webhooks");

export function getWebhook(id: string): Call<WebhookEndpoint> {
  return { method: "GET", path: hookPath(id), safety: "read", parse: (_s, b) => object<WebhookEndpoint>(b) };
}

export function updateWebhook(id: string, params: UpdateWebhookParams, options?: WriteOptions): Call<WebhookEndpoint> {
  checkEvents(params.events);
  return {
    method: "PATCH",
    path: hookPath(id),
    safety: "keyed",
    parse: (_s, b) => object<WebhookEndpoint>(b),
    body: dropUndefined({ ...params }),
    idempotencyKey: idempotencyKeyFor(options),
  };
}

export function deleteWebhook(id: string, options?: WriteOptions): Call<void> {
  return {
    method: "DELETE",
    path: hookPath(id),
    safety: "keyed",
    parse: () => undefined,
    idempotencyKey: idempotencyKeyFor(options),
  };
}

export function setWebhookEnabled(id: string, enabled: boolean, options?: WriteOptions): Call<WebhookEndpoint> {
  return {
    method: "POST",
    path: hookPath(id, enabled ? "enable" : "disable"),
    safety: "repeatable",
    parse: (_s, b) => object<WebhookEndpoint>(b),
    body: {},
    idempotencyKey: idempotencyKeyFor(options),
  };
}

export function rotateWebhookSecret(id: string, options?: WriteOptions): Call<RotatedSecret> {
  return {
    method: "POST",
    path: hookPath(id, "rotate-secret"),
    safety: "never",
    parse: (_s, b) => object<RotatedSecret>(b),
    body: {},
    idempotencyKey: idempotencyKeyFor({ ...options, idempotent: true }),
  };
}

export function testWebhook(id: string, options?: WriteOptions): Call<WebhookTestResult> {
  return {
    method: "POST",
    path: hookPath(id, "test"),
    safety: "keyed",
    parse: (_s, b) => object<WebhookTestResult>(b),
    body: {},
    idempotencyKey: idempotencyKeyFor(options),
  };
}

export function listWebhookDeliveries(id: string, params: ListDeliveriesParams = {}): Call<DeliveryPage> {
  return {
    method: "GET",
    path: hookPath(id, "deliveries"),
    safety: "read",
    parse: (_s, b) => pageOf<DeliveryPage>(b),
    query: { ...params },
  };
}
