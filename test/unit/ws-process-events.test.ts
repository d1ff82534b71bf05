import { turnIdFor } from "../../shared/processes/turn-ids.js";
import { describe, expect, it } from "vitest";
import { parseIdentity } from "../../shared/auth/identity.js";
import { ConnectionPushFailed } from "../../shared/connections/connection-errors.js";
import { InMemoryConnectionStore } from "../../shared/connections/in-memory-connection-store.js";
import { RecordingConnectionPush } from "../support/recording-connection-push.js";
import { createWebSocketProcessEvents } from "../../shared/connections/websocket-process-events.js";

const ACME = parseIdentity({ login: "alice", tenant: "acme", projects: ["proj1"], roles: [] });
const EVIL = parseIdentity({ login: "mallory", tenant: "evil", projects: ["proj1"], roles: [] });
const PENDING = [{ id: "m1", sender: "_skill", text: "Go on", kind: "action" as const, at: "2025-01-01T00:00:00.000Z" }];

async function setup() {
  const connections = new InMemoryConnectionStore();
  const push = new RecordingConnectionPush({ connections });
  const subscribe = async (connectionId: string, processId: string, who = ACME) => {
    await connections.put({ connectionId, identity: who });
    await connections.subscribe(who.tenant, connectionId, processId);
  };
  return { connections, push, subscribe, events: createWebSocketProcessEvents({ connections, push }) };
}

describe("createWebSocketProcessEvents", () => {
  it("sends process-turn-scheduled to each subscriber of the process and to nobody else", async () => {
    // Prepare
    const t = await setup();
    await t.subscribe("c1", "p1");
    await t.subscribe("c2", "p1");
    await t.subscribe("c3", "p2");
    await t.subscribe("e1", "p1", EVIL);

    // Act
    await t.events.turnScheduled({ tenant: "acme", processId: "p1", reason: "action", pending: PENDING });

    // Assess
    const expected = { type: "process-turn-scheduled", processId: "p1", reason: "action", pending: PENDING };
    expect(t.push.sent.map((s) => s.connectionId).sort()).toEqual(["c1", "c2"]);
    expect(t.push.framesTo("c1")).toEqual([expected]);
    expect(t.push.framesTo("c2")).toEqual([expected]);
  });

  it("looks up no subscribers for an event the lane knows nobody watches (issue 31)", async () => {
    // Prepare
    const t = await setup();
    let lookups = 0;
    const subscribers = t.connections.subscribers.bind(t.connections);
    t.connections.subscribers = async (...args) => {
      lookups += 1;
      return subscribers(...args);
    };
    const events = createWebSocketProcessEvents({ connections: t.connections, push: t.push });

    // Act
    await events.requestCompleted({ tenant: "acme", processId: "p1", requestId: "r1", status: "DONE", result: null, noSubscribers: true });
    await events.turnScheduled({ tenant: "acme", processId: "p1", reason: "action", pending: PENDING, noSubscribers: true });
    await events.requestCompleted({ tenant: "acme", processId: "p1", requestId: "r2", status: "DONE", result: null });

    // Assess
    expect(lookups).toBe(1);
  });

  it("sends process-skill-result with result for DONE and error for FAILED", async () => {
    // Prepare
    const t = await setup();
    await t.subscribe("c1", "p1");

    // Act
    await t.events.requestCompleted({ tenant: "acme", processId: "p1", requestId: "r1", status: "DONE", result: { activeSkills: [] } });
    await t.events.requestCompleted({
      tenant: "acme",
      processId: "p1",
      requestId: "r2",
      status: "FAILED",
      error: { code: "SKILL_LOCKED", message: "locked" },
    });

    // Assess
    expect(t.push.framesTo("c1")).toEqual([
      { type: "process-skill-result", requestId: "r1", processId: "p1", status: "DONE", result: { activeSkills: [] } },
      {
        type: "process-skill-result",
        requestId: "r2",
        processId: "p1",
        status: "FAILED",
        error: { code: "SKILL_LOCKED", message: "locked" },
      },
    ]);
  });

  it("sends a composed turn as process-turn-result {processId, requestId, turnId, result}, a completed one still as process-skill-result", async () => {
    // Prepare
    const t = await setup();
    await t.subscribe("c1", "p1");

    // Act
    await t.events.requestCompleted({
      tenant: "acme",
      processId: "p1",
      requestId: "r1",
      kind: "turn.compose",
      status: "DONE",
      result: { turnId: turnIdFor("r1") },
    });
    await t.events.requestCompleted({
      tenant: "acme",
      processId: "p1",
      requestId: "r2",
      kind: "turn.compose",
      status: "FAILED",
      error: { code: "PROCESS_ENDED", message: "ended" },
    });
    await t.events.requestCompleted({
      tenant: "acme",
      processId: "p1",
      requestId: "r3",
      kind: "turn.complete",
      status: "DONE",
      result: {},
    });

    // Assess
    expect(t.push.framesTo("c1")).toEqual([
      {
        type: "process-turn-result",
        processId: "p1",
        requestId: "r1",
        turnId: turnIdFor("r1"),
        status: "DONE",
        result: { turnId: turnIdFor("r1") },
      },
      {
        type: "process-turn-result",
        processId: "p1",
        requestId: "r2",
        turnId: turnIdFor("r2"),
        status: "FAILED",
        error: { code: "PROCESS_ENDED", message: "ended" },
      },
      { type: "process-skill-result", requestId: "r3", processId: "p1", status: "DONE", result: {} },
    ]);
  });

  it("does nothing when nobody is subscribed", async () => {
    // Prepare
    const t = await setup();

    // Act
    await t.events.requestCompleted({ tenant: "acme", processId: "p1", requestId: "r1", status: "DONE", result: {} });

    // Assess
    expect(t.push.sent).toEqual([]);
  });

  it("removes a gone subscriber and still reaches the others", async () => {
    // Prepare
    const t = await setup();
    await t.subscribe("c1", "p1");
    await t.subscribe("c2", "p1");
    t.push.markGone("c1");

    // Act
    await t.events.turnScheduled({ tenant: "acme", processId: "p1", reason: "shot", pending: PENDING });

    // Assess
    expect(t.push.sent.map((s) => s.connectionId)).toEqual(["c2"]);
    expect(await t.connections.subscribers("acme", "p1")).toEqual(["c2"]);
    expect(await t.connections.get("acme", "c1")).toBeUndefined();
  });

  it("delivers to the healthy subscribers before reporting the ones that failed", async () => {
    // Prepare
    const t = await setup();
    await t.subscribe("c1", "p1");
    await t.subscribe("c2", "p1");
    await t.subscribe("c3", "p1");
    t.push.markFailing("c2");

    // Act
    const publishing = t.events.requestCompleted({ tenant: "acme", processId: "p1", requestId: "r1", status: "DONE", result: 1 });

    // Assess
    await expect(publishing).rejects.toBeInstanceOf(ConnectionPushFailed);
    await expect(publishing).rejects.toMatchObject({ failures: [{ connectionId: "c2" }] });
    expect(t.push.sent.map((s) => s.connectionId).sort()).toEqual(["c1", "c3"]);
    expect(await t.connections.get("acme", "c2")).toBeDefined();
  });
});
