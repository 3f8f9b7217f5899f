/**
 * The tenant API client: one method per `/v1` route (docs/reference/tenant-api.md §5,
 * docs/reference/webhooks.md §4), with the retry rules of docs/reference/tenant-api.md §5.15.
 */
import * as calls from "./calls.js";
import { Transport, type ClientOptions, type RequestOptions, type WriteOptions } from "./core.js";
import type {
  AccessState,
  Application,
  ApplicationLoginSessionParams,
  ApplicationPage,
  ApplicationStatus,
  ApplicationSummary,
  ChecklistItem,
  ConsoleSession,
  Created,
  CreatedWebhookEndpoint,
  CreateWebhookParams,
  Decision,
  Delivery,
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
import { SweepTracker, type SweepResult } from "./sweep.js";

export interface IterateApplicationsParams {
  status?: ApplicationStatus | (string & {});
  externalRef?: string;
  /** An RFC 3339 time with its zone, or a Date. */
  updatedSince?: string | Date;
  /** Page size, 1 to 100 (default 100). */
  pageSize?: number;
}

export interface SweepParams {
  /** The checkpoint of the previous sweep; omit (or null) for everything. */
  since?: string | Date | null;
  /** Milliseconds re-read before `since` (default 60 000). */
  overlap?: number;
  status?: ApplicationStatus | (string & {});
  pageSize?: number;
  /** Catch-up passes at most (default 10). */
  maxPasses?: number;
}

function timestampParam(value: string | Date | undefined | null): string | undefined {
  if (value === undefined || value === null) return undefined;
  return value instanceof Date ? value.toISOString() : value;
}

/**
 * `new Gatehouse({ baseUrl, apiKey })`. Every write carries an Idempotency-Key generated once
 * per call (or the caller's `idempotencyKey`), reused by every retry of that call.
 */
export class Gatehouse {
  readonly #transport: Transport;
  readonly webhooks: Webhooks;
  readonly sandbox: Sandbox;
  readonly consoleSessions: ConsoleSessions;

  constructor(options: ClientOptions) {
    this.#transport = new Transport(options);
    this.webhooks = new Webhooks(this.#transport);
    this.sandbox = new Sandbox(this.#transport);
    this.consoleSessions = new ConsoleSessions(this.#transport);
  }

  get baseUrl(): string {
    return this.#transport.baseUrl;
  }

  /** Never shows the API key. */
  toJSON(): Record<string, unknown> {
    return { baseUrl: this.baseUrl };
  }

  /** Provision an application (§5.1): `created` tells 201 from a repeat that found it. */
  async createApplication(params: ProvisionParams, options?: WriteOptions): Promise<Created<Application>> {
    return this.#transport.send(calls.createApplication(params, options), options);
  }

  /**
   * Provision and mint a sign-in link (§5.2). Never repeated after an ambiguous failure: it
   * throws AmbiguousResult with the key it used. Never log `loginUrl`.
   */
  async createLoginSession(params: LoginSessionParams, options?: WriteOptions): Promise<LoginSession> {
    return this.#transport.send(calls.createLoginSession(params, options), options);
  }

  /** A fresh sign-in link for an existing application (§5.6); never repeated blindly. */
  async createApplicationLoginSession(
    clientId: string,
    params: ApplicationLoginSessionParams = {},
    options?: WriteOptions,
  ): Promise<LoginSession> {
    return this.#transport.send(calls.createApplicationLoginSession(clientId, params, options), options);
  }

  /** Read one application (§5.3). */
  async getApplication(clientId: string, options?: RequestOptions): Promise<Application> {
    return this.#transport.send(calls.getApplication(clientId), options);
  }

  /** Add portal access for one person (§5.7); safe to repeat. */
  async addMember(clientId: string, email: string, options?: WriteOptions): Promise<Created<Member>> {
    return this.#transport.send(calls.addMember(clientId, email, options), options);
  }

  /** Remove a member, handing ownership to `newOwnerUid` when needed (§5.8). */
  async removeMember(
    clientId: string,
    uid: string,
    params: { newOwnerUid?: string } = {},
    options?: WriteOptions,
  ): Promise<void> {
    await this.#transport.send(calls.removeMember(clientId, uid, params, options), options);
  }

  /** Lock applicant portal access (§5.9). */
  async lock(clientId: string, options?: WriteOptions): Promise<AccessState> {
    return this.#transport.send(calls.setAccess(clientId, "lock", options), options);
  }

  /** Restore applicant portal access (§5.10). */
  async unlock(clientId: string, options?: WriteOptions): Promise<AccessState> {
    return this.#transport.send(calls.setAccess(clientId, "unlock", options), options);
  }

  /** Information requests, highest seq first (§5.4). */
  async listInfoRequests(clientId: string, options?: RequestOptions): Promise<InfoRequest[]> {
    return this.#transport.send(calls.listInfoRequests(clientId), options);
  }

  /** Usable intake labels in configured order (§5.5). */
  async listIntakes(options?: RequestOptions): Promise<Intake[]> {
    return this.#transport.send(calls.listIntakes(), options);
  }

  /** Decision history, newest first (§5.12). */
  async listDecisions(clientId: string, options?: RequestOptions): Promise<Decision[]> {
    return this.#transport.send(calls.listDecisions(clientId), options);
  }

  /** The evidence checklist (§5.13). */
  async getChecklist(clientId: string, options?: RequestOptions): Promise<ChecklistItem[]> {
    return this.#transport.send(calls.getChecklist(clientId), options);
  }

  /** Document metadata (§5.14). */
  async listDocuments(clientId: string, options?: RequestOptions): Promise<Document[]> {
    return this.#transport.send(calls.listDocuments(clientId), options);
  }

  /** The event catalogue: each type with its description, schema and example (§5.17). */
  async listEventTypes(options?: RequestOptions): Promise<EventTypeInfo[]> {
    return this.#transport.send(calls.listEventTypes(), options);
  }

  /** One page of the application list (§5.11); send the same filters with each `cursor`. */
  async listApplications(params: ListApplicationsParams = {}, options?: RequestOptions): Promise<ApplicationPage> {
    return this.#transport.send(calls.listApplications(params), options);
  }

  /**
   * Every matching application, paging with the cursor under fixed filters and yielding each
   * clientId once (§5.11): `for await (const app of gh.applications({ status: "active" }))`.
   */
  async *applications(
    params: IterateApplicationsParams = {},
    options?: RequestOptions,
  ): AsyncGenerator<ApplicationSummary, void, undefined> {
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (;;) {
      const page = await this.listApplications(
        {
          limit: params.pageSize ?? 100,
          cursor,
          status: params.status as ApplicationStatus | undefined,
          externalRef: params.externalRef,
          updatedSince: timestampParam(params.updatedSince),
        },
        options,
      );
      for (const application of page.data) {
        if (seen.has(application.clientId)) continue;
        seen.add(application.clientId);
        yield application;
      }
      if (!page.hasMore || !page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }

  /**
   * Reconciliation sweep (§5.11, docs/reference/webhooks.md §7.2 rule 4): everything updated
   * since `since - overlap` (everything without `since`), with catch-up passes for
   * applications updated meanwhile. Store `checkpoint` only after processing `applications`,
   * and pass it as the next `since`.
   */
  async sweep(params: SweepParams = {}, options?: RequestOptions): Promise<SweepResult> {
    const tracker = new SweepTracker(params.since ?? null, params.overlap ?? 60_000, params.maxPasses ?? 10);
    let window: string | null | false = tracker.firstWindow();
    while (window !== false) {
      const pass = this.applications(
        { status: params.status, pageSize: params.pageSize ?? 100, updatedSince: window ?? undefined },
        options,
      );
      for await (const application of pass) tracker.add(application);
      window = tracker.nextWindow();
    }
    return tracker.result();
  }
}

/** Webhook endpoint management (docs/reference/webhooks.md §4): `gh.webhooks`. */
export class Webhooks {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Register an endpoint; the answer carries `secret`, once. */
  async create(params: CreateWebhookParams, options?: WriteOptions): Promise<CreatedWebhookEndpoint> {
    return this.#transport.send(calls.createWebhook(params, options), options);
  }
  async list(options?: RequestOptions): Promise<WebhookEndpoint[]> {
    return this.#transport.send(calls.listWebhooks(), options);
  }
  async get(id: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.#transport.send(calls.getWebhook(id), options);
  }
  /** Only the given fields change. */
  async update(id: string, params: UpdateWebhookParams, options?: WriteOptions): Promise<WebhookEndpoint> {
    return this.#transport.send(calls.updateWebhook(id, params, options), options);
  }
  async delete(id: string, options?: WriteOptions): Promise<void> {
    await this.#transport.send(calls.deleteWebhook(id, options), options);
  }
  async enable(id: string, options?: WriteOptions): Promise<WebhookEndpoint> {
    return this.#transport.send(calls.setWebhookEnabled(id, true, options), options);
  }
  async disable(id: string, options?: WriteOptions): Promise<WebhookEndpoint> {
    return this.#transport.send(calls.setWebhookEnabled(id, false, options), options);
  }
  /** Rotate the signing secret (§4.9); never repeated blindly: AmbiguousResult. */
  async rotateSecret(id: string, options?: WriteOptions): Promise<RotatedSecret> {
    return this.#transport.send(calls.rotateWebhookSecret(id, options), options);
  }
  /** Send a `webhook.test` event; check `success` (§4.10). */
  async test(id: string, options?: WriteOptions): Promise<WebhookTestResult> {
    return this.#transport.send(calls.testWebhook(id, options), options);
  }
  /** One page of an endpoint's deliveries, newest first. */
  async listDeliveries(id: string, params: ListDeliveriesParams = {}, options?: RequestOptions): Promise<DeliveryPage> {
    return this.#transport.send(calls.listWebhookDeliveries(id, params), options);
  }
  /** Every delivery of an endpoint, following the cursor. */
  async *deliveries(
    id: string,
    params: Omit<ListDeliveriesParams, "cursor"> = {},
    options?: RequestOptions,
  ): AsyncGenerator<Delivery, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.listDeliveries(id, { ...params, cursor }, options);
      yield* page.data;
      if (!page.hasMore || !page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }
}

/** Sandbox-tenant helpers: `gh.sandbox` (docs/reference/tenant-api.md §8). */
export class Sandbox {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Move a sandbox application as the applicant or staff would, and return it (§8.1):
   * `submit`, `request_info` (with `items`, or one default question), `respond`, `approve`,
   * `reject` (with `rejectionReason`), `hold`, `release`. Same rules, events and webhooks as
   * the real steps; a move the state does not allow is FailedPrecondition; any other tenant
   * gets NotFound.
   */
  async simulate(clientId: string, params: SimulateParams, options?: WriteOptions): Promise<Application> {
    return this.#transport.send(calls.simulate(clientId, params, options), options);
  }
}

/** Links to the tenant console (§5.16, docs/console.md): `gh.consoleSessions`. */
export class ConsoleSessions {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** A single-use console link, valid 10 minutes, for one of your own signed-in people. Never log `url`. */
  async create(options?: WriteOptions): Promise<ConsoleSession> {
    return this.#transport.send(calls.createConsoleSession(options), options);
  }
}
