/**
 * Bookkeeping of a reconciliation sweep over the application list
 * (docs/reference/tenant-api.md §5.11, docs/reference/webhooks.md §7.2 rule 4).
 *
 * The list is sorted by updatedAt descending, so an application updated while a sweep pages
 * through it jumps ahead of the cursor and is not on a later page. The sweep therefore runs
 * catch-up passes: each starts at the newest updatedAt seen minus the overlap, and they stop
 * once a pass brings nothing new. The checkpoint is the newest updatedAt seen, handed out only
 * when the last pass has ended; the next sweep starts at checkpoint - overlap.
 */
import type { ApplicationSummary } from "./models.js";

export interface SweepResult {
  /** Every application seen (the latest version of each), newest first. */
  applications: ApplicationSummary[];
  /** Store it after processing and pass it as the next `since`; null when nothing was seen. */
  checkpoint: string | null;
}

function millis(value: string | null | undefined): number | null {
  if (typeof value !== "string") return null;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? null : parsed;
}

/** An RFC 3339 UTC timestamp with milliseconds, as the API writes them. */
export function formatTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}

export class SweepTracker {
  readonly #seen = new Map<string, ApplicationSummary>();
  readonly #since: number | null;
  readonly #overlap: number;
  readonly #maxPasses: number;
  #newest: number | null = null;
  #passes = 0;
  #changed = false;

  /** `since`: an RFC 3339 time or a Date; `overlap` in milliseconds. */
  constructor(since: string | Date | null, overlap: number, maxPasses: number) {
    const sinceMs = since instanceof Date ? since.getTime() : since === null ? null : millis(since);
    if (since !== null && (sinceMs === null || Number.isNaN(sinceMs))) {
      throw new TypeError("since is an RFC 3339 time with a zone, or a Date");
    }
    if (typeof since === "string" && !/(Z|[+-]\d\d:\d\d)$/i.test(since.trim())) {
      throw new TypeError("since must carry its time zone (Z or ±hh:mm)");
    }
    if (!(overlap >= 0)) throw new TypeError("overlap must not be negative");
    if (!(maxPasses >= 1)) throw new TypeError("maxPasses must be at least 1");
    this.#since = sinceMs;
    this.#overlap = overlap;
    this.#maxPasses = maxPasses;
  }

  /** updatedSince of the first pass: null (everything) or since - overlap. */
  firstWindow(): string | null {
    return this.#since === null ? null : formatTimestamp(this.#since - this.#overlap);
  }

  /** Record one listed application; a newer version replaces an older one. */
  add(application: ApplicationSummary): void {
    const known = this.#seen.get(application.clientId);
    const updated = millis(application.updatedAt);
    const knownUpdated = known ? millis(known.updatedAt) : null;
    if (!known || (updated !== null && (knownUpdated === null || updated > knownUpdated))) {
      this.#seen.set(application.clientId, application);
      this.#changed = true;
    }
    if (updated !== null && (this.#newest === null || updated > this.#newest)) this.#newest = updated;
  }

  /** updatedSince of the next catch-up pass, or false when the sweep is done. */
  nextWindow(): string | false {
    this.#passes += 1;
    const changed = this.#changed;
    this.#changed = false;
    if (!changed || this.#passes >= this.#maxPasses || this.#newest === null) return false;
    return formatTimestamp(this.#newest - this.#overlap);
  }

  result(): SweepResult {
    let checkpoint = this.#newest;
    if (this.#since !== null && (checkpoint === null || checkpoint < this.#since)) checkpoint = this.#since;
    const applications = [...this.#seen.values()].sort((a, b) => {
      const byTime = (millis(b.updatedAt) ?? 0) - (millis(a.updatedAt) ?? 0);
      return byTime !== 0 ? byTime : a.clientId < b.clientId ? 1 : a.clientId > b.clientId ? -1 : 0;
    });
    return { applications, checkpoint: checkpoint === null ? null : formatTimestamp(checkpoint) };
  }
}
