import { createHash } from "node:crypto";
import { RequestConflict } from "../processes/process-errors.js";
import type { Lane } from "../lanes/lane.js";
import type { LaneMessageKind, LaneUser } from "../lanes/lane-message.js";
import { parseLanePayload } from "../lanes/lane-payloads.js";
import type { LanePayloads } from "../lanes/lane-payloads.js";
import type { RequestRecord, RequestStore } from "../processes/request-store.js";

export interface LaneRequest<K extends LaneMessageKind> {
  tenant: string;
  processId: string;
  user: LaneUser | null;
  kind: K;
  payload: LanePayloads[K];
  requestId: string;
}

/** JSON with sorted keys: the same payload always gives the same text, whatever order its fields came in. */
const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, canonical(v)]));
};

/**
 * What a request asked for, to tell a retry (same kind and payload: answered from the first) from
 * a reuse of its requestId for something else (REQUEST_CONFLICT). A compose's `turnId` is left
 * out: the service chooses a fresh one on every call, a retry included.
 */
export function requestFingerprint(kind: string, payload: unknown): string {
  const asked = kind === "turn.compose" && payload !== null && typeof payload === "object" ? { ...(payload as Record<string, unknown>), turnId: undefined } : payload;
  return `sha256:${createHash("sha256").update(JSON.stringify([kind, canonical(asked)])).digest("hex")}`;
}

/** API.md: reusing a requestId on its process with another kind or payload is 409 REQUEST_CONFLICT. */
export function assertSameRequest(record: RequestRecord, kind: string, fingerprint: string): void {
  if (record.kind !== kind) throw new RequestConflict(record.requestId.slice(0, 256), "kind");
  if (record.fingerprint !== undefined && record.fingerprint !== fingerprint) throw new RequestConflict(record.requestId.slice(0, 256), "payload");
}

/**
 * The one way work reaches a process lane: validate the payload, record the request as QUEUED
 * (so a caller can wait for it), then enqueue. Repeating a requestId never resets a result, and
 * reusing it on the process for another kind or payload is REQUEST_CONFLICT; a request still QUEUED is enqueued again, because its first enqueue may have failed after the
 * record was written (the lane de-duplicates, the applier applies at most once).
 */
export class LaneRequests {
  constructor(
    private readonly requests: RequestStore,
    private readonly lane: Lane,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * `conflicts`: a caller's requestId (API.md), refused when reused for something else. The
   * service's own derived requestIds (child reports, spawned activations) keep first-wins: a
   * redelivery may word a report differently, and must still be the same request.
   */
  async enqueue<K extends LaneMessageKind>(request: LaneRequest<K>, options: { conflicts?: boolean } = {}): Promise<RequestRecord> {
    const payload = parseLanePayload(request.kind, request.payload);
    const fingerprint = requestFingerprint(request.kind, payload);
    const { record, created } = await this.requests.putQueued(request.tenant, request.processId, request.requestId, request.kind, fingerprint);
    if (!created && options.conflicts === true) assertSameRequest(record, request.kind, fingerprint);
    if (record.status !== "QUEUED") return record;
    await this.lane.enqueue({
      requestId: request.requestId,
      processId: request.processId,
      tenant: request.tenant,
      user: request.user,
      kind: request.kind,
      payload,
      enqueuedAt: this.clock().toISOString(),
    });
    return record;
  }
}
