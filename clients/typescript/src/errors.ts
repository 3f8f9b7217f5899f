/**
 * Typed errors for every answer the tenant API can give (docs/reference/tenant-api.md §4.4).
 *
 * Branch on the class (or on `code` and `status`), never on `message` text. An unknown code
 * still throws a `GatehouseError` carrying what the server sent.
 */

/** One entry of an error's `details`: usually `{ field, issue }`. */
export type ErrorDetail = { field?: string; issue?: string; [key: string]: unknown };

export interface GatehouseErrorInit {
  status?: number | null;
  code?: string | null;
  requestId?: string | null;
  details?: ErrorDetail[];
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * An error answer of the API, or a failure to get one. `status` is the HTTP status (null when
 * no answer arrived), `code` the error code (`invalid-argument`, …), `requestId` the
 * `Service-Request-Id` to quote to support, `details` the optional `{field, issue}` list.
 */
export class GatehouseError extends Error {
  readonly status: number | null;
  readonly code: string | null;
  readonly requestId: string | null;
  readonly details: ErrorDetail[];
  readonly headers: Record<string, string>;

  constructor(message: string, init: GatehouseErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status ?? null;
    this.code = init.code ?? null;
    this.requestId = init.requestId ?? null;
    this.details = init.details ?? [];
    this.headers = init.headers ?? {};
  }
}

/** 400 invalid-argument: bad email, label, query, cursor or subscription. */
export class InvalidArgument extends GatehouseError {}
/** 400 failed-precondition: intake configuration, member cap, handover, recipient. */
export class FailedPrecondition extends GatehouseError {}
/** 410: the application was erased; never recreate it. */
export class Gone extends FailedPrecondition {}
/** 401 unauthorized: malformed, unknown, revoked or inactive API key. */
export class Unauthorized extends GatehouseError {}
/** 403 permission-denied: missing scope, suspended tenant or locked application. */
export class PermissionDenied extends GatehouseError {}
/** 404 not-found: unknown route, or a missing, foreign or erased resource. */
export class NotFound extends GatehouseError {}
/** 405 method-not-allowed. */
export class MethodNotAllowed extends GatehouseError {}
/** 409: the request conflicts with stored state. */
export class Conflict extends GatehouseError {}
/** 409 already-exists: the externalRef belongs to another applicant email. Do not retry unchanged. */
export class AlreadyExists extends Conflict {}

/** 409 aborted: a request with the same Idempotency-Key is still running. */
export class InProgress extends Conflict {
  /** The server's Retry-After in seconds, when it sent one. */
  readonly retryAfter: number | null;
  constructor(message: string, init: GatehouseErrorInit & { retryAfter?: number | null } = {}) {
    super(message, init);
    this.retryAfter = init.retryAfter ?? null;
  }
}

/** 429 resource-exhausted; `retryAfter` is the server's Retry-After in seconds. */
export class RateLimited extends GatehouseError {
  readonly retryAfter: number | null;
  constructor(message: string, init: GatehouseErrorInit & { retryAfter?: number | null } = {}) {
    super(message, init);
    this.retryAfter = init.retryAfter ?? null;
  }
}

/** 5xx: the server failed. For a write this does not prove nothing was written. */
export class ServerError extends GatehouseError {}

/** No HTTP answer arrived (connection refused, reset, timed out). */
export class NetworkError extends GatehouseError {
  /** False when the connection never opened, so the request was certainly not sent. */
  readonly sent: boolean;
  constructor(message: string, init: GatehouseErrorInit & { sent?: boolean } = {}) {
    super(message, init);
    this.sent = init.sent ?? true;
  }
}

/**
 * The caller's AbortSignal fired: the call was given up with no further retry. A write that was
 * in flight may or may not have happened: `idempotencyKey` repeats the same intent safely.
 */
export class AbortError extends GatehouseError {
  readonly idempotencyKey: string | null;
  constructor(message: string, init: GatehouseErrorInit & { idempotencyKey?: string | null } = {}) {
    super(message, init);
    this.idempotencyKey = init.idempotencyKey ?? null;
  }
}

/**
 * A write whose outcome is unknown: it may or may not have taken effect.
 *
 * Thrown instead of repeating a call that must not be repeated blindly (login sessions and
 * secret rotation, which make a new credential each time: docs/reference/tenant-api.md §5.15
 * rule 2, docs/reference/webhooks.md §4.9), or once the retries of a write are exhausted.
 * `idempotencyKey` is the key the attempts carried: pass it again as `idempotencyKey` to repeat
 * the same intent safely; the server then replays the first outcome
 * (docs/reference/tenant-api.md §4.6). `cause` is the last error seen.
 */
export class AmbiguousResult extends GatehouseError {
  readonly idempotencyKey: string | null;
  constructor(
    message: string,
    init: GatehouseErrorInit & { idempotencyKey: string | null },
  ) {
    super(message, init);
    this.idempotencyKey = init.idempotencyKey;
  }
}

type ErrorClass = new (message: string, init: GatehouseErrorInit) => GatehouseError;

const BY_CODE: Record<string, ErrorClass> = {
  "invalid-argument": InvalidArgument,
  "failed-precondition": FailedPrecondition,
  unauthorized: Unauthorized,
  "permission-denied": PermissionDenied,
  "not-found": NotFound,
  "method-not-allowed": MethodNotAllowed,
  "already-exists": AlreadyExists,
  aborted: InProgress,
  "resource-exhausted": RateLimited,
};

const BY_STATUS: Record<number, ErrorClass> = {
  400: InvalidArgument,
  401: Unauthorized,
  403: PermissionDenied,
  404: NotFound,
  405: MethodNotAllowed,
  409: Conflict,
  410: Gone,
  429: RateLimited,
};

/** Retry-After as seconds: integer or decimal seconds; an HTTP date is converted. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | null {
  if (value == null) return null;
  const text = value.trim();
  if (text === "") return null;
  let seconds = /^[0-9]+(\.[0-9]+)?$/.test(text) ? Number(text) : NaN;
  if (Number.isNaN(seconds)) {
    const when = Date.parse(text);
    if (Number.isNaN(when)) return null;
    seconds = (when - now) / 1000;
  }
  return seconds < 0 ? 0 : seconds;
}

function textOf(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The typed error for an HTTP error answer (docs/reference/tenant-api.md §4.4). */
export function errorFromResponse(
  status: number,
  headers: Record<string, string>,
  body: unknown,
): GatehouseError {
  const error = isObject(body) && isObject(body["error"]) ? body["error"] : {};
  const code = textOf(error["code"]);
  const message = textOf(error["message"]);
  const requestId = textOf(error["requestId"]) ?? headers["service-request-id"] ?? null;
  const rawDetails = error["details"];
  const details = Array.isArray(rawDetails) ? (rawDetails.filter(isObject) as ErrorDetail[]) : [];
  let cls: ErrorClass;
  if (status >= 500) cls = ServerError;
  else if (status === 410) cls = Gone;
  else if (code !== null && code in BY_CODE) cls = BY_CODE[code]!;
  else cls = BY_STATUS[status] ?? GatehouseError;
  const init = { status, code, requestId, details, headers };
  const text = message ?? `HTTP ${status}`;
  if (cls === RateLimited || cls === InProgress) {
    const retryAfter = parseRetryAfter(headers["retry-after"]);
    return cls === RateLimited
      ? new RateLimited(text, { ...init, retryAfter })
      : new InProgress(text, { ...init, retryAfter });
  }
  return new cls(text, init);
}
