/**
 * Accept-once deduplication keyed by event id (docs/reference/webhooks.md §7.1 rule 6).
 *
 * A delivery may arrive more than once (retries, two endpoints, a replay). `accept(eventId)`
 * returns true the first time an id is seen and false afterwards: answer 2xx in both cases, and
 * act on the event only the first time. `MemoryDedupeStore` keeps ids in the process for a
 * time; for several processes or restarts, give `DedupeStore` an implementation over your
 * database (an insert that ignores a duplicate primary key is atomic and durable).
 */

export interface DedupeStore {
  /** Record the id atomically; true the first time only. May be async. */
  accept(eventId: string): boolean | Promise<boolean>;
  /** Forget an id (e.g. when processing failed and the delivery should be taken again). */
  forget?(eventId: string): void | Promise<void>;
}

export interface MemoryDedupeOptions {
  /** Milliseconds an id is remembered (default 48 hours, longer than the 24 h delivery window). */
  ttl?: number;
  /** Ids kept at most; the oldest go first (default 100 000). */
  maxEntries?: number;
  /** The clock, milliseconds (for tests). */
  now?: () => number;
}

export class MemoryDedupeStore implements DedupeStore {
  readonly #seen = new Map<string, number>();
  readonly #ttl: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: MemoryDedupeOptions = {}) {
    this.#ttl = options.ttl ?? 48 * 3600 * 1000;
    this.#max = options.maxEntries ?? 100_000;
    this.#now = options.now ?? Date.now;
  }

  accept(eventId: string): boolean {
    if (typeof eventId !== "string" || eventId === "") throw new TypeError("eventId is required");
    const now = this.#now();
    this.#expire(now);
    const seenAt = this.#seen.get(eventId);
    if (seenAt !== undefined && now - seenAt < this.#ttl) return false;
    this.#seen.delete(eventId);
    this.#seen.set(eventId, now);
    while (this.#seen.size > this.#max) {
      const oldest = this.#seen.keys().next().value as string;
      this.#seen.delete(oldest);
    }
    return true;
  }

  forget(eventId: string): void {
    this.#seen.delete(eventId);
  }

  get size(): number {
    return this.#seen.size;
  }

  #expire(now: number): void {
    // Insertion order is acceptance order: stop at the first id still fresh.
    for (const [id, at] of this.#seen) {
      if (now - at < this.#ttl) break;
      this.#seen.delete(id);
    }
  }
}
