import { describe, expect, it } from "vitest";
import { createLaneApplier } from "../../shared/app/lane-applier.js";
import type { LaneMessage } from "../../shared/lanes/lane-message.js";
import { InMemoryRequestStore } from "../../shared/processes/in-memory-request-store.js";
import type { RequestRecord } from "../../shared/processes/request-store.js";
import { RecordingProcessEvents } from "../../shared/steering/process-events.js";
import type { LaneTurnRead, TurnState } from "../../shared/turns/turn-state.js";

/**
 * A compose's one read (issue 31): the lane applier takes the request's record from the read that
 * brings the process (no read of its own), hands that process to the compose, and tells the
 * events when the read showed nobody subscribed.
 */

const T = "acme";
const message: LaneMessage = {
  requestId: "r1",
  processId: "p1",
  tenant: T,
  user: { login: "ada" },
  kind: "turn.compose",
  payload: { turnId: "t1", message: "hi" },
  enqueuedAt: "2026-01-01T00:00:00.000Z",
};
const delivery = { messageId: "m1", groupId: undefined, receiveCount: 1 };
const state = { process: { processId: "p1", projectId: "proj" } } as unknown as TurnState;

function rig(read: LaneTurnRead) {
  const requests = new InMemoryRequestStore();
  let gets = 0;
  const get = requests.get.bind(requests);
  requests.get = async (...args) => {
    gets += 1;
    return get(...args);
  };
  const composed: (TurnState | undefined)[] = [];
  const events = new RecordingProcessEvents();
  const apply = createLaneApplier({
    steer: {} as never,
    reports: {} as never,
    laneRequests: {} as never,
    processes: {} as never,
    turns: {
      compose: async (_req: unknown, _payload: unknown, given?: TurnState) => {
        composed.push(given);
        return { result: { turnId: "t1" }, process: given?.process, activated: [], refused: [] };
      },
    } as never,
    requests,
    events,
    logger: { warn: () => undefined },
    readTurn: async () => read,
  });
  return { apply, requests, gets: () => gets, composed, events };
}

describe("the lane applier's compose read", () => {
  it("takes the request from the process read, composes on that state, and marks the completion as unwatched", async () => {
    // Prepare
    const queued: RequestRecord = { requestId: "r1", processId: "p1", kind: "turn.compose", status: "QUEUED" };
    const r = rig({ state, request: { record: queued }, mayHaveSubscribers: false });
    await r.requests.putQueued(T, "p1", "r1", "turn.compose");

    // Act
    await r.apply(message, delivery);

    // Assess
    expect(r.gets()).toBe(0);
    expect(r.composed).toEqual([state]);
    expect((await r.requests.get(T, "p1", "r1"))?.status).toBe("DONE");
    expect(r.events.events).toEqual([expect.objectContaining({ type: "requestCompleted", requestId: "r1", noSubscribers: true })]);
  });

  it("skips a redelivery whose record the read shows settled, without composing", async () => {
    // Prepare
    const settled: RequestRecord = { requestId: "r1", processId: "p1", kind: "turn.compose", status: "DONE", result: null };
    const r = rig({ state, request: { record: settled }, mayHaveSubscribers: true });

    // Act
    await r.apply(message, delivery);

    // Assess
    expect(r.composed).toEqual([]);
    expect(r.events.events).toEqual([]);
  });

  it("reads the request itself when the store could not carry it, and tells subscribers when it does not know", async () => {
    // Prepare
    const r = rig({ state });
    await r.requests.putQueued(T, "p1", "r1", "turn.compose");

    // Act
    await r.apply(message, delivery);

    // Assess
    expect(r.gets()).toBeGreaterThanOrEqual(1);
    expect(r.events.events).toEqual([expect.objectContaining({ type: "requestCompleted", requestId: "r1" })]);
    expect(r.events.events[0]).not.toHaveProperty("noSubscribers");
  });
});
