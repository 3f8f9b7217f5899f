/**
 * Webhook signature verification (docs/reference/webhooks.md §5), with Web Crypto only.
 *
 * A delivery carries two header sets, each signed on its own:
 *
 * - Gatehouse: `Gatehouse-Timestamp`, `Gatehouse-Signature` (`v1=<lowercase hex HMAC-SHA256 of
 *   "<timestamp>.<raw body>">`, the secret used as-is as UTF-8), `Gatehouse-Event-Id`,
 *   `Gatehouse-Event-Type`, `Gatehouse-Attempt`.
 * - Standard Webhooks: `webhook-id` (the event id), `webhook-timestamp` (the same Unix seconds),
 *   `webhook-signature` (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">`, keyed by
 *   the base64 decoding of the secret after its `whsec_` prefix).
 *
 * Either set holds one signature per active secret, separated by single spaces. The Gatehouse
 * set is preferred: when both are present only it is verified. `verifyWebhook` checks, in order:
 * an integer timestamp within the tolerance, one `v1` signature matching any held secret (every
 * pair compared in constant time), the body's `id` (and `type`) equal to the headers, and its
 * `tenantId` one of the expected tenants.
 */
import { webcrypto } from "../webcrypto.js";
import { parseEvent, type WebhookEvent } from "./events.js";

export const DEFAULT_TOLERANCE = 300;
const SECRET_PREFIX = "whsec_";

export type SignatureFailure =
  | "missing_timestamp"
  | "invalid_timestamp"
  | "timestamp_out_of_tolerance"
  | "missing_signature"
  | "no_v1_signature"
  | "missing_event_id"
  | "no_usable_secret"
  | "signature_mismatch"
  | "invalid_body"
  | "event_id_mismatch"
  | "event_type_mismatch"
  | "unexpected_tenant";

/** A delivery that must not be trusted: answer it with a 4xx (400 or 401). */
export class SignatureError extends Error {
  readonly reason: SignatureFailure;
  constructor(reason: SignatureFailure, message: string) {
    super(message);
    this.name = "SignatureError";
    this.reason = reason;
  }
}

/** Header sources: a Fetch `Headers`, Node's `IncomingHttpHeaders`, a plain object, or pairs. */
export type HeaderSource =
  | { get(name: string): string | null }
  | Record<string, string | string[] | undefined>
  | Iterable<readonly [string, string]>;

/** The raw body: exactly the bytes received, never a parsed and re-serialized object. */
export type RawBody = Uint8Array | ArrayBuffer | string;

export interface VerifyOptions {
  /** The endpoint secrets you hold: two during a rotation. */
  secrets: string | readonly string[];
  /** Seconds the timestamp may be away from now (default 300). */
  tolerance?: number;
  /** The tenantIds this receiver serves; others are rejected. */
  expectedTenants?: readonly string[];
  /** Now, in Unix seconds (for tests and replays). */
  now?: number;
}

const encoder = new TextEncoder();

function header(headers: HeaderSource, name: string): string | null {
  const wanted = name.toLowerCase();
  if (typeof (headers as { get?: unknown }).get === "function" && !(headers instanceof Map)) {
    return (headers as { get(n: string): string | null }).get(name);
  }
  const entries: Iterable<readonly [string, unknown]> =
    Symbol.iterator in (headers as object)
      ? (headers as Iterable<readonly [string, string]>)
      : Object.entries(headers as Record<string, unknown>);
  for (const [key, value] of entries) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value.join(", ") : String(value);
  }
  return null;
}

async function hmac(key: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
  const s = (await webcrypto()).subtle;
  const imported = await s.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await s.sign("HMAC", imported, message));
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text);
}

function fromBase64(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  const bare = text.replace(/=+$/, "");
  if (bare.length % 4 === 1) return null;
  try {
    return Uint8Array.from(atob(bare + "=".repeat((4 - (bare.length % 4)) % 4)), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

function bytesOf(body: RawBody): Uint8Array {
  if (typeof body === "string") return encoder.encode(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (body instanceof Uint8Array) return body;
  throw new TypeError("the body must be the raw request body (Uint8Array, Buffer, ArrayBuffer or string)");
}

/** Constant-time equality of two byte strings of possibly different lengths. */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

function anyMatch(expected: Uint8Array[], candidates: Uint8Array[]): boolean {
  let matched = false;
  // Every pair is compared, so timing does not tell which one matched.
  for (const digest of expected) for (const candidate of candidates) matched = timingSafeEqual(digest, candidate) || matched;
  return matched;
}

/** The HMAC key of a secret for `webhook-signature`: base64 after `whsec_`, or null. */
export function standardWebhooksKey(secret: string): Uint8Array | null {
  const text = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (text === "") return null;
  const key = fromBase64(text);
  return key && key.length > 0 ? key : null;
}

/** Lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>`, the secret used as-is (UTF-8). */
export async function computeSignature(secret: string, timestamp: number | string, body: RawBody): Promise<string> {
  return toHex(await hmac(encoder.encode(secret), concat(encoder.encode(`${timestamp}.`), bytesOf(body))));
}

/** A `Gatehouse-Signature` value: `v1=<hex>` per secret, space separated. */
export async function signatureHeader(secrets: readonly string[], timestamp: number | string, body: RawBody): Promise<string> {
  const parts = await Promise.all(secrets.map(async (s) => `v1=${await computeSignature(s, timestamp, body)}`));
  return parts.join(" ");
}

/** Base64 HMAC-SHA256 of `<id>.<timestamp>.<raw body>` keyed by `standardWebhooksKey`. */
export async function computeStandardSignature(
  secret: string,
  msgId: string,
  timestamp: number | string,
  body: RawBody,
): Promise<string> {
  const key = standardWebhooksKey(secret);
  if (key === null) throw new TypeError("the secret is not base64 after whsec_: no Standard Webhooks key");
  return toBase64(await hmac(key, concat(encoder.encode(`${msgId}.${timestamp}.`), bytesOf(body))));
}

/** A `webhook-signature` value: `v1,<base64>` per secret, space separated. */
export async function standardSignatureHeader(
  secrets: readonly string[],
  msgId: string,
  timestamp: number | string,
  body: RawBody,
): Promise<string> {
  const parts = await Promise.all(
    secrets.map(async (s) => `v1,${await computeStandardSignature(s, msgId, timestamp, body)}`),
  );
  return parts.join(" ");
}

function checkedTimestamp(headers: HeaderSource, name: string, tolerance: number, now: number): number {
  const text = header(headers, name);
  if (text === null) throw new SignatureError("missing_timestamp", `${name} header is missing`);
  if (!/^[0-9]{1,12}$/.test(text.trim())) throw new SignatureError("invalid_timestamp", `${name} is not integer seconds`);
  const timestamp = Number(text.trim());
  if (Math.abs(now - timestamp) > tolerance) {
    throw new SignatureError("timestamp_out_of_tolerance", `${name} is more than ${tolerance}s away`);
  }
  return timestamp;
}

async function checkGatehouse(body: Uint8Array, headers: HeaderSource, held: string[], tolerance: number, now: number) {
  const timestamp = checkedTimestamp(headers, "Gatehouse-Timestamp", tolerance, now);
  const text = header(headers, "Gatehouse-Signature");
  if (!text) throw new SignatureError("missing_signature", "Gatehouse-Signature header is missing");
  const candidates = text
    .split(/\s+/)
    .filter((part) => part.startsWith("v1=") && /^[0-9a-f]{64}$/.test(part.slice(3).toLowerCase()))
    .map((part) => encoder.encode(part.slice(3).toLowerCase()));
  if (candidates.length === 0) throw new SignatureError("no_v1_signature", "Gatehouse-Signature holds no v1 signature");
  const expected = await Promise.all(held.map(async (s) => encoder.encode(await computeSignature(s, timestamp, body))));
  if (!anyMatch(expected, candidates)) throw new SignatureError("signature_mismatch", "no signature matches a held secret");
  return { timestamp, claimedId: header(headers, "Gatehouse-Event-Id") };
}

async function checkStandard(body: Uint8Array, headers: HeaderSource, held: string[], tolerance: number, now: number) {
  const timestamp = checkedTimestamp(headers, "webhook-timestamp", tolerance, now);
  const text = header(headers, "webhook-signature");
  if (!text) throw new SignatureError("missing_signature", "webhook-signature header is missing");
  const candidates: Uint8Array[] = [];
  for (const part of text.split(/\s+/)) {
    const comma = part.indexOf(",");
    if (comma < 0 || part.slice(0, comma) !== "v1") continue; // v1a (asymmetric) is not ours
    const decoded = fromBase64(part.slice(comma + 1));
    if (decoded && decoded.length > 0) candidates.push(decoded);
  }
  if (candidates.length === 0) throw new SignatureError("no_v1_signature", "webhook-signature holds no v1 signature");
  const msgId = header(headers, "webhook-id");
  if (!msgId) throw new SignatureError("missing_event_id", "webhook-id header is missing");
  const keys = held.map(standardWebhooksKey).filter((k): k is Uint8Array => k !== null);
  if (keys.length === 0) {
    throw new SignatureError("no_usable_secret", "no held secret is base64 after whsec_, so none can check webhook-signature");
  }
  const message = concat(encoder.encode(`${msgId}.${timestamp}.`), body);
  const expected = await Promise.all(keys.map((key) => hmac(key, message)));
  if (!anyMatch(expected, candidates)) throw new SignatureError("signature_mismatch", "no signature matches a held secret");
  return { timestamp, claimedId: msgId };
}

/**
 * Verify one webhook delivery and return its event; throws `SignatureError` (with `reason`).
 *
 * `body` is the exact request body as received. Header names are matched case-insensitively.
 * Gatehouse's header set is checked when `Gatehouse-Signature` is present (the Standard
 * Webhooks headers are then ignored, never a fallback); the Standard Webhooks set when it is
 * the only one (a gateway that forwards only those). `event.delivery.signatureScheme` says which.
 */
export async function verifyWebhook(body: RawBody, headers: HeaderSource, options: VerifyOptions): Promise<WebhookEvent> {
  const bytes = bytesOf(body);
  const held = typeof options.secrets === "string" ? [options.secrets] : [...options.secrets];
  if (held.length === 0 || held.some((s) => typeof s !== "string" || s === "")) {
    throw new TypeError("at least one non-empty secret is required");
  }
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE;
  const now = options.now ?? Date.now() / 1000;
  const present = (...names: string[]): boolean => names.some((n) => header(headers, n) !== null);
  const standard =
    !present("Gatehouse-Signature") &&
    (present("webhook-signature") || (!present("Gatehouse-Timestamp") && present("webhook-timestamp", "webhook-id")));
  const { timestamp, claimedId } = await (standard ? checkStandard : checkGatehouse)(bytes, headers, held, tolerance, now);

  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new SignatureError("invalid_body", "the body is not JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new SignatureError("invalid_body", "the body is not a JSON object");
  }
  const event = parsed as Record<string, unknown>;
  const idHeader = standard ? "webhook-id" : "Gatehouse-Event-Id";
  if (typeof event["id"] !== "string" || claimedId !== event["id"]) {
    throw new SignatureError("event_id_mismatch", `${idHeader} differs from the body id`);
  }
  if (typeof event["type"] !== "string") throw new SignatureError("event_type_mismatch", "the body has no event type");
  if (!standard && header(headers, "Gatehouse-Event-Type") !== event["type"]) {
    throw new SignatureError("event_type_mismatch", "Gatehouse-Event-Type differs from the body type");
  }
  if (options.expectedTenants !== undefined && !options.expectedTenants.includes(event["tenantId"] as string)) {
    throw new SignatureError("unexpected_tenant", "the event's tenantId is not expected here");
  }
  const attemptText = header(headers, "Gatehouse-Attempt");
  const attempt = attemptText && /^\s*\d+\s*$/.test(attemptText) ? Number(attemptText) : null;
  return parseEvent(event, { attempt, timestamp, signatureScheme: standard ? "standard-webhooks" : "gatehouse" });
}
