/**
 * When a call may be repeated (docs/reference/tenant-api.md §5.15, §4.4, §4.6).
 *
 * The decision is a pure function of what the call is, what went wrong and how many attempts
 * were made:
 *
 * - 429 and 409 `aborted` mean nothing ran: every call waits (Retry-After when given, else
 *   exponential backoff with jitter) and repeats.
 * - A connection that never opened means nothing was sent: every call repeats.
 * - A 5xx, or a timeout or broken connection after the request went out, is ambiguous: the
 *   write may have happened. Reads, member add, lock, unlock, enable and disable repeat. Other
 *   writes repeat only with the Idempotency-Key generated once for the call (the server replays
 *   the first outcome). Without a key, a provisioning call reconciles with the matching read
 *   first. Login sessions and secret rotation are never repeated blindly: AmbiguousResult.
 */

/** How safe a call is to repeat after an ambiguous failure. */
export type Safety =
  /** A read. */
  | "read"
  /** Repeating returns the resulting state: member add, lock, unlock. */
  | "repeatable"
  /** Safe to repeat only with the same Idempotency-Key; otherwise reconcile first. */
  | "keyed"
  /** Each success makes a new credential: login sessions, secret rotation. */
  | "never";

export type Action = "retry" | "raise" | "ambiguous" | "reconcile";

export interface Decision {
  action: Action;
  /** Milliseconds to wait before the next attempt. */
  delay: number;
}

/** Backoff settings, all in milliseconds. */
export interface Backoff {
  /** The first backoff (before jitter). */
  base: number;
  /** The longest backoff. */
  cap: number;
  /** A Retry-After longer than this is not waited for: the error is thrown. */
  maxRetryAfter: number;
}

export const DEFAULT_BACKOFF: Backoff = { base: 500, cap: 30_000, maxRetryAfter: 60_000 };

/** Attempt n waits uniformly in [d/2, d], d = min(base * 2^n, cap). */
export function backoffDelay(backoff: Backoff, retryNumber: number, random: () => number = Math.random): number {
  const nominal = Math.min(backoff.base * 2 ** retryNumber, backoff.cap);
  return nominal / 2 + random() * (nominal / 2);
}

export interface Failure {
  safety: Safety;
  hasKey: boolean;
  canReconcile: boolean;
  retriesDone: number;
  maxRetries: number;
  backoff: Backoff;
  /** HTTP status of the error answer; null for a transport failure. */
  status: number | null;
  code?: string | null;
  /** The server's Retry-After, in milliseconds. */
  retryAfter?: number | null;
  /** False when the connection never opened. */
  sent?: boolean;
  random?: () => number;
}

/** What to do after one failed attempt. */
export function decide(f: Failure): Decision {
  const exhausted = f.retriesDone >= f.maxRetries;
  const wait = (): number => backoffDelay(f.backoff, f.retriesDone, f.random);
  if (f.status === 429 || (f.status === 409 && f.code === "aborted")) {
    if (exhausted) return { action: "raise", delay: 0 };
    if (f.retryAfter != null) {
      if (f.retryAfter > f.backoff.maxRetryAfter) return { action: "raise", delay: 0 };
      return { action: "retry", delay: f.retryAfter };
    }
    return { action: "retry", delay: wait() };
  }
  if (f.status !== null && f.status < 500) return { action: "raise", delay: 0 };
  if (f.status === null && f.sent === false) {
    return exhausted ? { action: "raise", delay: 0 } : { action: "retry", delay: wait() };
  }
  // A 5xx, or a transport failure after the request went out: ambiguous.
  if (f.safety === "read") {
    return exhausted ? { action: "raise", delay: 0 } : { action: "retry", delay: wait() };
  }
  if (f.safety === "never") return { action: "ambiguous", delay: 0 };
  if (f.safety === "repeatable" || f.hasKey) {
    return exhausted ? { action: "ambiguous", delay: 0 } : { action: "retry", delay: wait() };
  }
  if (f.canReconcile && !exhausted) return { action: "reconcile", delay: wait() };
  return { action: "ambiguous", delay: 0 };
}
