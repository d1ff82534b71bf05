import { InvalidRequest } from "../errors.js";
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

/**
 * The one way work reaches a process lane: validate the payload, record the request as QUEUED
 * (so a caller can wait for it), then enqueue. Repeating a requestId never resets a result; a
 * request still QUEUED is enqueued again, because its first enqueue may have failed after the
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
    const { record } = await this.requests.putQueued(request.tenant, request.processId, request.requestId, request.kind);
    if (record.processId !== request.processId) {
      throw new InvalidRequest(`Request '${request.requestId.slice(0, 80)}' was already used for another process`);
    }
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
