/**
 * Executing one call with the retry rules of docs/reference/tenant-api.md §5.15: the request,
 * its timeout and abort signal, reading the answer, and turning failures into typed errors.
 */
import {
  AbortError,
  AmbiguousResult,
  GatehouseError,
  NetworkError,
  RateLimited,
  InProgress,
  errorFromResponse,
} from "./errors.js";
import { DEFAULT_BACKOFF, decide, type Backoff, type Decision, type Safety } from "./retry.js";
import { VERSION } from "./version.js";
import { webcrypto } from "./webcrypto.js";

export const USER_AGENT = `gatehouse-kyc-client/${VERSION} (typescript)`;

type Method = "GET" | "POST" | "PATCH" | "DELETE";
type FetchFn = (input: string, init: RequestInit) => Promise<Response>;

/** What every method takes last: per-request settings. */
export interface RequestOptions {
  /** Milliseconds for each attempt (default: the client's `timeout`). */
  timeout?: number;
  /** Gives the call up (no further retries); an in-flight write may or may not have happened. */
  signal?: AbortSignal;
}

/** Per-request settings of a write. */
export interface WriteOptions extends RequestOptions {
  /**
   * The Idempotency-Key for this intent (1 to 255 printable ASCII characters). Default: one
   * generated for the call and reused by every retry of it.
   */
  idempotencyKey?: string;
  /** False sends no Idempotency-Key (ambiguous failures then reconcile or throw). */
  idempotent?: boolean;
}

export interface ClientOptions {
  /** The server's public address, e.g. `https://gatehouse.example.com`. */
  baseUrl: string;
  /** `service_<key-id>_<secret>`; never sent anywhere but `baseUrl`. */
  apiKey: string;
  /** Milliseconds per attempt (default 10 000). */
  timeout?: number;
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** First backoff in milliseconds (default 500), doubled each retry up to `backoffMax`. */
  backoffBase?: number;
  /** Longest backoff in milliseconds (default 30 000). */
  backoffMax?: number;
  /** A Retry-After longer than this (milliseconds, default 60 000) is thrown, not waited for. */
  maxRetryAfter?: number;
  /** The fetch to use (default: the runtime's global `fetch`). */
  fetch?: FetchFn;
  /** Extra headers on every request (e.g. a tracing header). */
  headers?: Record<string, string>;
}

/** A reconciling read: when `settle` finds the write took effect, its value is the result. */
export interface Reconcile<T> {
  read: Call<unknown>;
  settle: (value: unknown) => { value: T } | null;
}

/** The description of one API call: what to send, how to read the answer, how safe to repeat. */
export interface Call<T> {
  method: Method;
  path: string;
  safety: Safety;
  parse: (status: number, body: unknown) => T;
  query?: Record<string, string | number | undefined | null>;
  body?: Record<string, unknown>;
  idempotencyKey?: string | null;
  reconcile?: Reconcile<T> | null;
}

const PRINTABLE = /^[\x20-\x7e]{1,255}$/;

/** Stands for "generate a key when the call is sent" (Web Crypto may need an import first). */
export const AUTO_KEY = "\u0000generate";

async function newKey(): Promise<string> {
  return `gh-${(await webcrypto()).randomUUID().replace(/-/g, "")}`;
}

/** The key of one logical call: the caller's, or one generated now; null when turned off. */
export function idempotencyKeyFor(options: WriteOptions | undefined): string | null {
  const key = options?.idempotencyKey;
  if (options?.idempotent === false) {
    if (key !== undefined) throw new TypeError("idempotencyKey given with idempotent: false");
    return null;
  }
  if (key === undefined) return AUTO_KEY;
  if (!PRINTABLE.test(key)) {
    throw new TypeError("an Idempotency-Key is 1 to 255 printable ASCII characters");
  }
  return key;
}

/** One path segment: a non-empty identifier, percent-encoded. */
export function segment(value: string): string {
  if (typeof value !== "string" || value === "") {
    throw new TypeError("identifiers must be non-empty strings");
  }
  return encodeURIComponent(value);
}

// Codes of failures where the connection never opened: the request was not sent.
const NOT_SENT = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

function causeCode(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function describe(error: unknown): string {
  const code = causeCode(error);
  const message = error instanceof Error ? error.message : String(error);
  return code ? `${message} (${code})` : message;
}

function headersOf(response: Response): Record<string, string> {
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
}

async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === "") return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

export class Transport {
  readonly baseUrl: string;
  readonly timeout: number;
  readonly maxRetries: number;
  readonly backoff: Backoff;
  readonly #apiKey: string;
  readonly #fetch: FetchFn;
  readonly #headers: Record<string, string>;

  constructor(options: ClientOptions) {
    if (!options.baseUrl) throw new TypeError("baseUrl is required");
    if (!options.apiKey) throw new TypeError("apiKey is required");
    const maxRetries = options.maxRetries ?? 3;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) {
      throw new TypeError("maxRetries is a non-negative integer");
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#apiKey = options.apiKey;
    this.timeout = options.timeout ?? 10_000;
    this.maxRetries = maxRetries;
    this.backoff = {
      base: options.backoffBase ?? DEFAULT_BACKOFF.base,
      cap: options.backoffMax ?? DEFAULT_BACKOFF.cap,
      maxRetryAfter: options.maxRetryAfter ?? DEFAULT_BACKOFF.maxRetryAfter,
    };
    const fetchFn = options.fetch ?? globalThis.fetch;
    if (typeof fetchFn !== "function") throw new TypeError("no fetch in this runtime: pass options.fetch");
    // Called as a plain function: some runtimes refuse a `fetch` called on another object.
    this.#fetch = (input, init) => fetchFn(input, init);
    this.#headers = { ...(options.headers ?? {}) };
  }

  /** Never shows the API key. */
  toJSON(): Record<string, unknown> {
    return { baseUrl: this.baseUrl };
  }

  url(call: Call<unknown>): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined && value !== null) params.append(name, String(value));
    }
    const query = params.toString();
    return this.baseUrl + call.path + (query ? `?${query}` : "");
  }

  /** Run one call to its outcome: its parsed answer, or a typed error. */
  async send<T>(given: Call<T>, options: RequestOptions = {}): Promise<T> {
    // One key per call, generated once here and reused by every retry.
    const call = given.idempotencyKey === AUTO_KEY ? { ...given, idempotencyKey: await newKey() } : given;
    for (let retries = 0; ; retries += 1) {
      const outcome = await this.#attempt(call, options, retries);
      if (outcome.ok) return outcome.value;
      const { error, decision } = outcome;
      if (decision.action === "raise") throw error;
      if (decision.action === "ambiguous") throw this.#ambiguous(call, error);
      if (decision.action === "reconcile" && call.reconcile) {
        const settled = call.reconcile.settle(await this.send(call.reconcile.read, options));
        if (settled !== null) return settled.value;
      }
      try {
        await sleep(decision.delay, options.signal);
      } catch (reason) {
        throw this.#aborted(call, reason);
      }
    }
  }

  async #attempt<T>(
    call: Call<T>,
    options: RequestOptions,
    retries: number,
  ): Promise<{ ok: true; value: T } | { ok: false; error: GatehouseError; decision: Decision }> {
    if (options.signal?.aborted) throw this.#aborted(call, options.signal.reason);
    const timeout = options.timeout ?? this.timeout;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`timed out after ${timeout} ms`)), timeout);
    const onAbort = (): void => controller.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const failure = {
      safety: call.safety,
      hasKey: Boolean(call.idempotencyKey),
      canReconcile: Boolean(call.reconcile),
      retriesDone: retries,
      maxRetries: this.maxRetries,
      backoff: this.backoff,
    };
    try {
      let response: Response;
      try {
        response = await this.#fetch(this.url(call), this.#init(call, controller.signal));
      } catch (exc) {
        if (options.signal?.aborted) throw this.#aborted(call, options.signal.reason);
        const sent = !NOT_SENT.has(causeCode(exc) ?? "");
        const what = controller.signal.aborted ? `timed out after ${timeout} ms` : describe(exc);
        const error = new NetworkError(
          `${what} on ${call.method} ${call.path}${sent ? "" : " (request not sent)"}`,
          { cause: exc, sent },
        );
        return { ok: false, error, decision: decide({ ...failure, status: null, sent }) };
      }
      const body = await bodyOf(response);
      if (response.ok) return { ok: true, value: call.parse(response.status, body) };
      const error = errorFromResponse(response.status, headersOf(response), body);
      const retryAfter =
        error instanceof RateLimited || error instanceof InProgress ? error.retryAfter : null;
      const decision = decide({
        ...failure,
        status: response.status,
        code: error.code,
        retryAfter: retryAfter === null ? null : retryAfter * 1000,
      });
      return { ok: false, error, decision };
    } catch (exc) {
      if (exc instanceof GatehouseError) throw exc;
      if (options.signal?.aborted) throw this.#aborted(call, options.signal.reason);
      // The answer's body could not be read in time: the request went out.
      const error = new NetworkError(`${describe(exc)} on ${call.method} ${call.path}`, { cause: exc });
      return { ok: false, error, decision: decide({ ...failure, status: null, sent: true }) };
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  #init(call: Call<unknown>, signal: AbortSignal): RequestInit {
    const headers: Record<string, string> = {
      ...this.#headers,
      Authorization: `Bearer ${this.#apiKey}`,
      Accept: "application/json",
      "User-Agent": USER_AGENT,
    };
    if (call.idempotencyKey) headers["Idempotency-Key"] = call.idempotencyKey;
    const init: RequestInit = { method: call.method, headers, signal, redirect: "manual" };
    if (call.body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(call.body);
    }
    return init;
  }

  #ambiguous(call: Call<unknown>, error: GatehouseError): AmbiguousResult {
    const hint = call.idempotencyKey
      ? `; repeat with idempotencyKey "${call.idempotencyKey}" to get the first outcome`
      : "; read the current state before repeating";
    return new AmbiguousResult(
      `${call.method} ${call.path} may or may not have taken effect (${error.message})${hint}`,
      {
        idempotencyKey: call.idempotencyKey ?? null,
        cause: error,
        status: error.status,
        code: error.code,
        requestId: error.requestId,
      },
    );
  }

  #aborted(call: Call<unknown>, reason: unknown): AbortError {
    return new AbortError(`${call.method} ${call.path} was aborted`, {
      cause: reason,
      idempotencyKey: call.idempotencyKey ?? null,
    });
  }
}
