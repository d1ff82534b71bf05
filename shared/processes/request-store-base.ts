import * as z from "zod";
import { RequestNotFound } from "./process-errors.js";
import type { RequestOutcome, RequestRecord, RequestStore } from "./request-store.js";
import { sleep as realSleep } from "../support/retry-backoff.js";
import type { Sleep } from "../support/retry-backoff.js";

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
  requestId: z.string().min(1),
  processId: z.string().min(1),
  kind: z.string(),
  fingerprint: z.string().optional(),
  status: z.enum(["QUEUED", "DONE", "FAILED"]),
  result: z.unknown().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
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

  constructor(options: RequestStoreOptions = {}) {
    this.ttlSeconds = options.ttlSeconds ?? 24 * 60 * 60;
    this.pollStartMs = options.pollStartMs ?? 20;
    this.pollMaxMs = options.pollMaxMs ?? 250;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? realSleep;
  }

  /** false when a record with this requestId exists. `expiresAt` is in epoch seconds. */
  protected abstract insertIfAbsent(tenant: string, record: RequestRecord, expiresAt: number): Promise<boolean>;
  /** The stored record in any shape (the base validates it), or undefined. Strongly consistent. */
  protected abstract readItem(tenant: string, processId: string, requestId: string): Promise<unknown>;
  /** Writes the outcome only while the record is QUEUED; returns the new item, or undefined when it was not QUEUED or absent. */
  protected abstract completeIfQueued(tenant: string, processId: string, requestId: string, outcome: RequestOutcome, expiresAt: number): Promise<unknown>;

  async putQueued(tenant: string, processId: string, requestId: string, kind: string, fingerprint?: string): Promise<{ record: RequestRecord; created: boolean }> {
    const record: RequestRecord = { requestId, processId, kind, ...(fingerprint !== undefined ? { fingerprint } : {}), status: "QUEUED" };
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
    const completed = await this.completeIfQueued(tenant, processId, requestId, normalized, this.expiresAt());
    if (completed !== undefined) return parseRecord(completed);
    const existing = await this.get(tenant, processId, requestId);
    if (!existing) throw new RequestNotFound(requestId);
    return existing;
  }

  async get(tenant: string, processId: string, requestId: string): Promise<RequestRecord | undefined> {
    const item = await this.readItem(tenant, processId, requestId);
    return item === undefined ? undefined : parseRecord(item);
  }

  async waitFor(tenant: string, processId: string, requestId: string, timeoutMs: number, options: { signal?: AbortSignal } = {}): Promise<RequestRecord | undefined> {
    const deadline = this.now() + Math.max(0, timeoutMs);
    let interval = this.pollStartMs;
    for (;;) {
      const record = await this.get(tenant, processId, requestId);
      if (record && record.status !== "QUEUED") return record;
      const remaining = deadline - this.now();
      if (remaining <= 0 || options.signal?.aborted) return record;
      await this.sleep(Math.min(interval, remaining), options.signal);
      interval = Math.min(this.pollMaxMs, Math.ceil(interval * 1.5));
    }
  }

  protected expiresAt(): number {
    return Math.floor(this.now() / 1000) + this.ttlSeconds;
  }
}

const parseRecord = (item: unknown): RequestRecord => {
  const parsed = StoredRecord.parse(item);
  return {
    requestId: parsed.requestId,
    processId: parsed.processId,
    kind: parsed.kind,
    ...(parsed.fingerprint !== undefined ? { fingerprint: parsed.fingerprint } : {}),
    status: parsed.status,
    ...(parsed.status === "DONE" ? { result: parsed.result ?? null } : {}),
    ...(parsed.error ? { error: parsed.error } : {}),
  };
};

/** Results are stored as JSON: functions, undefined and class instances do not survive anyway. */
const asJson = (value: unknown): unknown => (value === undefined ? null : JSON.parse(JSON.stringify(value)));
