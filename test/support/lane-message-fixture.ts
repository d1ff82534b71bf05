import type { LaneMessage } from "../../shared/lanes/lane-message.js";

/** A well-formed lane message (a turn compose of acme's proc-1), with any field replaced. */
export function laneMessage(overrides: Partial<LaneMessage> = {}): LaneMessage {
  return {
    requestId: "req-1",
    processId: "proc-1",
    tenant: "acme",
    user: null,
    kind: "turn.compose",
    payload: { message: "hello" },
    enqueuedAt: "2025-01-02T03:04:05.678Z",
    ...overrides,
  };
}
