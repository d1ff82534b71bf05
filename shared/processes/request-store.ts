/**
 * Results of lane work, by (process, requestId): requestIds are scoped to their process (API.md), so a caller can wait for (or later fetch) what the lane
 * did with its request. Records expire (TTL, default 24 h).
 * Adapters: in-memory-request-store.ts, dynamodb-request-store.ts; shared rules in request-store-base.ts.
 */
import type { RequestRecord as ApiRequestRecord } from "../../contract/index.js";

export type RequestStatus = "QUEUED" | "DONE" | "FAILED";

export interface RequestError {
  code: string;
  message: string;
}

export interface RequestRecord {
  requestId: string;
  processId: string;
  /** The lane message kind, e.g. `skill.activate`. */
  kind: string;
  status: RequestStatus;
  /**
   * What was asked (requestFingerprint: kind and payload); a reuse of the requestId with another
   * one is REQUEST_CONFLICT. Absent on records written without one (nothing to compare).
   */
  fingerprint?: string;
  /** Any JSON value; present when DONE. */
  result?: unknown;
  /** Present when FAILED. */
  error?: RequestError;
}

export type RequestOutcome = { status: "DONE"; result: unknown } | { status: "FAILED"; error: RequestError };

export interface RequestStore {
  /**
   * Records a request as QUEUED unless it is known already; an existing record (maybe DONE)
   * is returned untouched with `created: false` — a repeated requestId never resets a result.
   */
  putQueued(
    tenant: string,
    processId: string,
    requestId: string,
    kind: string,
    fingerprint?: string,
  ): Promise<{ record: RequestRecord; created: boolean }>;
  /**
   * QUEUED → DONE/FAILED. The first outcome wins: completing an already completed request
   * returns the stored record unchanged. Unknown request → `RequestNotFound`.
   */
  complete(tenant: string, processId: string, requestId: string, outcome: RequestOutcome): Promise<RequestRecord>;
  get(tenant: string, processId: string, requestId: string): Promise<RequestRecord | undefined>;
  /**
   * Polls until the request is DONE/FAILED, `timeoutMs` passed, or `signal` aborted; returns the
   * last record read (QUEUED when it did not finish in time, undefined when it never existed).
   */
  waitFor(
    tenant: string,
    processId: string,
    requestId: string,
    timeoutMs: number,
    options?: WaitOptions,
  ): Promise<RequestRecord | undefined>;
}

export interface WaitOptions {
  signal?: AbortSignal;
  /**
   * The first read waits this long: a read before the lane can have applied anything is a
   * request for nothing. "learned": what this store's waited requests of the same process
   * recently took (LaneSettleTimes). Unset: read at once.
   */
  firstReadAfterMs?: number | "learned";
  /**
   * Called once when that first read finds the request still QUEUED and time is left, before
   * the wait goes on; throwing ends the wait with that error (a wait slot that is not free).
   */
  beforeLongWait?: () => Promise<void>;
}

/** The API.md shape `{requestId,status,result?,error?}`. */
/** Typed by the contract's RequestRecord: the answer cannot drift from API.md. */
export const toApiRequest = (record: RequestRecord): ApiRequestRecord => ({
  requestId: record.requestId,
  status: record.status,
  ...(record.status === "DONE" ? { result: record.result } : {}),
  ...(record.error ? { error: { ...record.error } } : {}),
});
