import { RequestWatcher } from "./request-watcher.js";
import type { WatchedRequest } from "./request-watcher.js";
import * as z from "zod/mini";
import "../../contract/locale.js";
import { RequestNotFound } from "./process-errors.js";
import type { RequestOutcome, RequestRecord, RequestStore, WaitOptions } from "./request-store.js";
import { LRUCache } from "lru-cache";
import { sleep as realSleep } from "../support/retry-backoff.js";
import { LaneSettleTimes } from "./lane-settle-times.js";
import type { Sleep } from "../support/retry-backoff.js";

/** DynamoDB's BatchGetItem limit. */
export const READ_BATCH_SIZE = 100;

export interface RequestStoreOptions {
  /** Lifetime of a record after its last write (default 24 h). */
  ttlSeconds?: number;
  /** First poll interval of `waitFor`; it grows ×1.5 up to `pollMaxMs`. */
  pollStartMs?: number;
  pollMaxMs?: number;
  now?: () => number;
  sleep?: Sleep;
}

const StoredRecord = z.object({
  requestId: z.string().check(z.minLength(1)),
  processId: z.string().check(z.minLength(1)),
  kind: z.string(),
  status: z.enum(["QUEUED", "DONE", "FAILED"]),
  result: z.optional(z.unknown()),
  error: z.optional(z.object({ code: z.string(), message: z.string() })),
  fingerprint: z.optional(z.string()),
});

/**
 * The RequestStore rules that need no AWS: first-write-wins, TTL arithmetic, outcome
 * normalisation and the polling of `waitFor`. Adapters implement three conditional primitives.
 */
export abstract class BaseRequestStore implements RequestStore {
  protected readonly ttlSeconds: number;
  protected readonly pollStartMs: number;
  protected readonly pollMaxMs: number;
  protected readonly now: () => number;
  protected readonly sleep: Sleep;
  /** Every waitFor of this store (one per container) shares one polling loop. */
  private readonly watcher: RequestWatcher;
  /** When waited requests settle, per lane (WaitOptions.firstReadAfterMs "learned"). */
  private readonly settleTimes = new LaneSettleTimes();
  /** `settledAtMs` of records the watcher saw settled, until their waiter takes it (parsed records leave it out). */
  private readonly settledAt = new LRUCache<string, number>({ max: 1024 });

  constructor(options: RequestStoreOptions = {}) {
    this.ttlSeconds = options.ttlSeconds ?? 24 * 60 * 60;
    this.pollStartMs = options.pollStartMs ?? 20;
    this.pollMaxMs = options.pollMaxMs ?? 250;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? realSleep;
    this.watcher = new RequestWatcher({
      readMany: async (requests) =>
        (await this.readItems(requests)).map((item, i) => {
          if (item === undefined) return undefined;
          const at = settledAtOf(item);
          if (at !== undefined) this.settledAt.set(watchKey(requests[i]!), at);
          return parseRecord(item);
        }),
      pollStartMs: this.pollStartMs,
      pollMaxMs: this.pollMaxMs,
      batchSize: READ_BATCH_SIZE,
      now: () => this.now(),
      sleep: (ms, signal) => this.sleep(ms, signal),
    });
  }

  /** Callers of waitFor waiting right now in this container. */
  get waiting(): number {
    return this.watcher.size;
  }

  /** false when a record with this requestId exists. `expiresAt` is in epoch seconds. */
  protected abstract insertIfAbsent(tenant: string, record: RequestRecord, expiresAt: number): Promise<boolean>;
  /** The stored record in any shape (the base validates it), or undefined. Strongly consistent. */
  protected abstract readItem(tenant: string, processId: string, requestId: string): Promise<unknown>;
  /** Several records in one round trip where the store can (at most READ_BATCH_SIZE), in order. Default: one read each. */
  protected async readItems(requests: readonly WatchedRequest[]): Promise<unknown[]> {
    return Promise.all(requests.map((r) => this.readItem(r.tenant, r.processId, r.requestId)));
  }
  /** Writes the outcome only while the record is QUEUED; returns the new item, or undefined when it was not QUEUED or absent. */
  protected abstract completeIfQueued(
    tenant: string,
    processId: string,
    requestId: string,
    outcome: RequestOutcome,
    expiresAt: number,
    settledAtMs: number,
  ): Promise<unknown>;

  async putQueued(
    tenant: string,
    processId: string,
    requestId: string,
    kind: string,
    fingerprint?: string,
  ): Promise<{ record: RequestRecord; created: boolean }> {
    const record: RequestRecord = { requestId, processId, kind, status: "QUEUED", ...(fingerprint !== undefined ? { fingerprint } : {}) };
    // A second round only happens when the existing record vanished (TTL) between our two calls.
    for (let round = 0; round < 2; round++) {
      if (await this.insertIfAbsent(tenant, record, this.expiresAt())) return { record, created: true };
      const existing = await this.get(tenant, processId, requestId);
      if (existing) return { record: existing, created: false };
    }
    throw new RequestNotFound(requestId);
  }

  async complete(tenant: string, processId: string, requestId: string, outcome: RequestOutcome): Promise<RequestRecord> {
    const normalized: RequestOutcome =
      outcome.status === "DONE"
        ? { status: "DONE", result: asJson(outcome.result) }
        : { status: "FAILED", error: { code: outcome.error.code, message: outcome.error.message } };
    const completed = await this.completeIfQueued(tenant, processId, requestId, normalized, this.expiresAt(), this.now());
    if (completed !== undefined) return parseRecord(completed);
    const existing = await this.get(tenant, processId, requestId);
    if (!existing) throw new RequestNotFound(requestId);
    return existing;
  }

  async get(tenant: string, processId: string, requestId: string): Promise<RequestRecord | undefined> {
    const item = await this.readItem(tenant, processId, requestId);
    return item === undefined ? undefined : parseRecord(item);
  }

  async waitFor(
    tenant: string,
    processId: string,
    requestId: string,
    timeoutMs: number,
    options: WaitOptions = {},
  ): Promise<RequestRecord | undefined> {
    const { signal, beforeLongWait } = options;
    if (options.firstReadAfterMs === undefined) {
      // Joins the watcher in this tick when there is nothing to await (callers count it at once).
      if (beforeLongWait) await beforeLongWait();
      return this.watcher.wait({ tenant, processId, requestId }, timeoutMs, signal);
    }
    const learned = options.firstReadAfterMs === "learned";
    const firstReadAfterMs = learned ? this.settleTimes.firstReadMs(tenant, processId) : (options.firstReadAfterMs as number);
    const started = this.now();
    const left = (): number => timeoutMs - (this.now() - started);
    const learn = (settledAtMs: number | undefined): void => {
      // A record settled before this wait began (a repeated requestId) says nothing about the lane.
      if (learned && settledAtMs !== undefined && settledAtMs >= started) this.settleTimes.sample(tenant, processId, settledAtMs - started);
    };

    await this.sleep(Math.max(0, Math.min(firstReadAfterMs, timeoutMs)), signal);
    const item = await this.readItem(tenant, processId, requestId);
    const first = item === undefined ? undefined : parseRecord(item);
    if (first?.status !== "QUEUED") {
      if (item !== undefined) learn(settledAtOf(item));
      return first;
    }
    if (left() <= 0 || signal?.aborted) return first;
    await beforeLongWait?.();
    // The watcher reads as soon as a caller joins: one poll interval first, not a second read at once.
    await this.sleep(Math.min(this.pollStartMs, left()), signal);
    if (left() <= 0 || signal?.aborted) return first;
    const watched = { tenant, processId, requestId };
    const record = await this.watcher.wait(watched, left(), signal);
    if (record && record.status !== "QUEUED") {
      learn(this.settledAt.get(watchKey(watched)) ?? this.now());
      this.settledAt.delete(watchKey(watched));
    }
    return record ?? first;
  }

  protected expiresAt(): number {
    return Math.floor(this.now() / 1000) + this.ttlSeconds;
  }
}

/** When the lane completed the record (epoch ms on the completing instance's clock); stored beside it, not part of it. */
export interface StoredSettledAt {
  settledAtMs?: number;
}

const settledAtOf = (item: unknown): number | undefined => {
  const at = (item as StoredSettledAt | null)?.settledAtMs;
  return typeof at === "number" ? at : undefined;
};

const watchKey = (request: WatchedRequest): string => JSON.stringify([request.tenant, request.processId, request.requestId]);

/** A stored record in any shape, validated (RequestStore.get's answer for it). */
export const parseRecord = (item: unknown): RequestRecord => {
  const parsed = StoredRecord.parse(item);
  return {
    requestId: parsed.requestId,
    processId: parsed.processId,
    kind: parsed.kind,
    ...(parsed.fingerprint !== undefined ? { fingerprint: parsed.fingerprint } : {}),
    status: parsed.status,
    ...(parsed.status === "DONE" ? { result: parsed.result ?? null } : {}),
    ...(parsed.error ? { error: parsed.error } : {}),
    ...(parsed.fingerprint !== undefined ? { fingerprint: parsed.fingerprint } : {}),
  };
};

/** Results are stored as JSON: functions, undefined and class instances do not survive anyway. */
const asJson = (value: unknown): unknown => (value === undefined ? null : JSON.parse(JSON.stringify(value)));
