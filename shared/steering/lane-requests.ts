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
  /** The process's project where the producer knows it (usage counting of a refusal needs it). */
  projectId?: string | undefined;
  user: LaneUser | null;
  kind: K;
  payload: LanePayloads[K];
  requestId: string;
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

  async enqueue<K extends LaneMessageKind>(request: LaneRequest<K>): Promise<RequestRecord> {
    const payload = parseLanePayload(request.kind, request.payload);
    const fingerprint = requestFingerprint(request.kind, payload);
    const { record } = await this.requests.putQueued(request.tenant, request.processId, request.requestId, request.kind, fingerprint);
    assertSameRequest(record, request.kind, fingerprint);
    if (record.status !== "QUEUED") return record;
    await this.lane.enqueue({
      requestId: request.requestId,
      processId: request.processId,
      tenant: request.tenant,
      ...(request.projectId !== undefined ? { projectId: request.projectId } : {}),
      user: request.user,
      kind: request.kind,
      payload,
      enqueuedAt: this.clock().toISOString(),
    });
    return record;
  }
}

/**
 * A hash of what a request asks. The turnId of a compose is left out: the service picks one when
 * the caller names none, so a retry of the same compose brings another.
 */
export function requestFingerprint(kind: string, payload: unknown): string {
  const asked =
    kind === "turn.compose" && payload !== null && typeof payload === "object"
      ? { ...(payload as Record<string, unknown>), turnId: undefined }
      : payload;
  return createHash("sha256")
    .update(JSON.stringify([kind, asked]))
    .digest("base64url")
    .slice(0, 22);
}

/**
 * API.md: a requestId reused on its process with another kind or payload is 409
 * REQUEST_CONFLICT — never the first request's result. Records from before fingerprints compare by kind.
 */
export function assertSameRequest(record: RequestRecord, kind: string, fingerprint: string): void {
  if (record.kind !== kind) throw new RequestConflict(record.requestId, `for a ${record.kind} request`);
  if (record.fingerprint !== undefined && record.fingerprint !== fingerprint)
    throw new RequestConflict(record.requestId, "with another payload");
}
