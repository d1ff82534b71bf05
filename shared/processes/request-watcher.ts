import { sleep as realSleep } from "../support/retry-backoff.js";
import type { Sleep } from "../support/retry-backoff.js";
import type { RequestRecord } from "./request-store.js";

/** One request a caller waits for. */
export interface WatchedRequest {
  tenant: string;
  processId: string;
  requestId: string;
}

export interface RequestWatcherOptions {
  /**
   * Reads the records of `requests` in one round trip where the store can (BatchGetItem), in
   * the same order; an absent record is undefined. At most `batchSize` requests per call.
   */
  readMany: (requests: readonly WatchedRequest[]) => Promise<(RequestRecord | undefined)[]>;
  /** First interval between reads; it grows ×1.5 up to `pollMaxMs` while nobody new arrives. */
  pollStartMs: number;
  pollMaxMs: number;
  batchSize?: number;
  now: () => number;
  sleep: Sleep;
}

interface Waiter {
  deadline: number;
  signal: AbortSignal | undefined;
  last: RequestRecord | undefined;
  resolve: (record: RequestRecord | undefined) => void;
}

const keyOf = (request: WatchedRequest): string => `${request.tenant}\u0000${request.processId}\u0000${request.requestId}`;

/**
 * Every `waitFor` of one instance shares one polling loop: each round reads every watched
 * request in batches (one BatchGetItem per 100 on DynamoDB), however many callers wait and for
 * however many requests, so waiting callers never flood the table the lane writes to. A caller
 * is answered when its request settles, or at its deadline with what was last read, even while a
 * slow read is still out: the wait cap holds whatever the store does.
 */
export class RequestWatcher {
  private readonly waiters = new Map<string, { request: WatchedRequest; waiters: Set<Waiter> }>();
  private readonly batchSize: number;
  private running = false;
  private interval: number;
  /** Wakes the loop's sleep when a new caller arrives, so it is read promptly. */
  private wake: AbortController | undefined;

  constructor(private readonly options: RequestWatcherOptions) {
    this.batchSize = options.batchSize ?? 100;
    this.interval = options.pollStartMs;
  }

  /** Callers waiting right now (all requests). */
  get size(): number {
    let n = 0;
    for (const entry of this.waiters.values()) n += entry.waiters.size;
    return n;
  }

  wait(request: WatchedRequest, timeoutMs: number, signal?: AbortSignal): Promise<RequestRecord | undefined> {
    return new Promise((resolve) => {
      const waiter: Waiter = { deadline: this.options.now() + Math.max(0, timeoutMs), signal, last: undefined, resolve };
      const key = keyOf(request);
      const entry = this.waiters.get(key) ?? { request, waiters: new Set<Waiter>() };
      entry.waiters.add(waiter);
      this.waiters.set(key, entry);
      signal?.addEventListener("abort", () => this.settle(key, waiter, waiter.last), { once: true });
      this.interval = this.options.pollStartMs;
      if (this.running) this.wake?.abort();
      else void this.loop();
    });
  }

  private settle(key: string, waiter: Waiter, record: RequestRecord | undefined): void {
    const entry = this.waiters.get(key);
    if (!entry?.waiters.delete(waiter)) return;
    if (entry.waiters.size === 0) this.waiters.delete(key);
    waiter.resolve(record);
  }

  private async loop(): Promise<void> {
    this.running = true;
    try {
      while (this.waiters.size > 0) {
        await this.round();
        this.expire();
        if (this.waiters.size === 0) break;
        this.wake = new AbortController();
        await this.options.sleep(Math.min(this.interval, this.untilNextDeadline()), this.wake.signal);
        this.interval = Math.min(this.options.pollMaxMs, Math.ceil(this.interval * 1.5));
        this.expire();
      }
    } finally {
      this.running = false;
      this.wake = undefined;
    }
  }

  /** One read of everything watched; a round that outlives the nearest deadline answers that caller first. */
  private async round(): Promise<void> {
    const entries = [...this.waiters.entries()];
    const reads = [];
    for (let i = 0; i < entries.length; i += this.batchSize) {
      const chunk = entries.slice(i, i + this.batchSize);
      reads.push(
        this.options.readMany(chunk.map(([, e]) => e.request)).then(
          (records) => chunk.forEach(([key], j) => this.observe(key, records[j])),
          // A failed read is tried again next round; the deadline still answers the caller.
          () => undefined,
        ),
      );
    }
    const all = Promise.all(reads).then(() => true);
    // A real timer, not the injected sleep: it only bounds a read that hangs, and is cancelled
    // as soon as the read is back (tests drive the injected sleep as their clock).
    for (;;) {
      const cancel = new AbortController();
      const timedOut = realSleep(this.untilNextDeadline(), cancel.signal).then(() => false);
      const finished = await Promise.race([all, timedOut]);
      cancel.abort();
      if (finished) return;
      this.expire();
      if (this.waiters.size === 0) return;
    }
  }

  private observe(key: string, record: RequestRecord | undefined): void {
    const entry = this.waiters.get(key);
    if (!entry) return;
    for (const waiter of [...entry.waiters]) {
      waiter.last = record;
      if (record && record.status !== "QUEUED") this.settle(key, waiter, record);
    }
  }

  private expire(): void {
    const now = this.options.now();
    for (const [key, entry] of [...this.waiters.entries()]) {
      for (const waiter of [...entry.waiters]) if (waiter.deadline <= now || waiter.signal?.aborted) this.settle(key, waiter, waiter.last);
    }
  }

  private untilNextDeadline(): number {
    const now = this.options.now();
    let next = Number.POSITIVE_INFINITY;
    for (const entry of this.waiters.values()) for (const waiter of entry.waiters) next = Math.min(next, waiter.deadline - now);
    return Math.max(0, next === Number.POSITIVE_INFINITY ? this.options.pollMaxMs : next);
  }
}
