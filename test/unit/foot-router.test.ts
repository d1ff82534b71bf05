import { describe, expect, it } from "vitest";
import { createSkillsApp } from "../../shared/app/skills-app.js";
import { parseIdentity } from "../../shared/auth/identity.js";
import type { Identity } from "../../shared/auth/identity.js";
import type { ConnectionPush, PushOutcome, PushTarget } from "../../shared/connections/connection-push.js";
import { InMemoryConnectionStore } from "../../shared/connections/in-memory-connection-store.js";
import type { ProcessSkillScriptExecuteFrame, ServerFrame } from "../../shared/connections/server-frames.js";
import { createWsFrameRouter } from "../../shared/app/ws-frame-router.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { FootScriptFailed, FootScriptTimeout, FootScriptTooLarge } from "../../shared/foot/foot-errors.js";
import { FootRouter } from "../../shared/foot/foot-router.js";
import type { FootScriptRequest } from "../../shared/scripts/foot-port.js";
import { InMemoryFootInvocationStore } from "../../shared/foot/in-memory-foot-invocation-store.js";
import { InMemoryLane } from "../../shared/lanes/in-memory-lane.js";
import { InMemoryProcessStore } from "../../shared/processes/in-memory-process-store.js";
import { InMemoryRequestStore } from "../../shared/processes/in-memory-request-store.js";
import { EmptyLayer, FakeRenderer } from "../support/steering-harness.js";

const ALICE = parseIdentity({ login: "alice", tenant: "acme", projects: ["proj1"], roles: [] });
const BOB = parseIdentity({ login: "bob", tenant: "acme", projects: ["proj1"], roles: ["tenant-admin"] });
const MALLORY = parseIdentity({ login: "mallory", tenant: "evil", projects: ["proj1"], roles: ["tenant-admin"] });

type Responder = (frame: ProcessSkillScriptExecuteFrame) => unknown;

/** A push that records frames and lets a fake client answer execute frames through the real frame router. */
class ClientSimulatingPush implements ConnectionPush {
  readonly sent: { connectionId: string; frame: ServerFrame }[] = [];
  readonly gone = new Set<string>();
  readonly responders = new Map<string, { identity: Identity; respond: Responder }>();
  route: ((identity: Identity, connectionId: string, body: string) => Promise<void>) | undefined;

  async send(target: PushTarget, frame: ServerFrame): Promise<PushOutcome> {
    if (this.gone.has(target.connectionId)) return "gone";
    this.sent.push({ connectionId: target.connectionId, frame });
    const responder = this.responders.get(target.connectionId);
    if (frame.type === "process-skill-script-execute" && responder) {
      const answer = responder.respond(frame);
      if (answer !== undefined) setTimeout(() => void this.route?.(responder.identity, target.connectionId, JSON.stringify(answer)), 5);
    }
    return "sent";
  }

  framesTo(connectionId: string): ServerFrame[] {
    return this.sent.filter((s) => s.connectionId === connectionId).map((s) => s.frame);
  }
}

function setup(timeoutMs = 2_000) {
  const connections = new InMemoryConnectionStore();
  const invocations = new InMemoryFootInvocationStore();
  const push = new ClientSimulatingPush();
  const app = createSkillsApp({
    documents: new InMemoryDocumentStore(),
    bundled: new EmptyLayer(),
    processes: new InMemoryProcessStore(),
    requests: new InMemoryRequestStore(),
    lane: new InMemoryLane(),
    renderer: new FakeRenderer(),
    footInvocations: invocations,
  });
  const router = createWsFrameRouter({ app, connections, push });
  push.route = (identity, connectionId, body) => router({ identity, connectionId }, body);
  let ids = 0;
  const foot = new FootRouter({ connections, push, invocations, timeoutMs, newInvocationId: () => `inv-${++ids}` });
  const subscribe = async (connectionId: string, processId = "p1", identity: Identity = ALICE) => {
    await connections.put({ connectionId, identity });
    await connections.subscribe(identity.tenant, connectionId, processId);
  };
  const request = (extra: Partial<FootScriptRequest> = {}): FootScriptRequest => ({
    tenant: "acme",
    processId: "p1",
    owner: "alice",
    skillName: "kit",
    scriptName: "local",
    args: { dir: "src" },
    source: "vance.fs.list(args.dir)",
    ...extra,
  });
  return { connections, invocations, push, router, foot, subscribe, request };
}

const failureOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
};

describe("FootRouter", () => {
  it("pushes the execute frame to a subscribed client and resolves with its answer and logs", async () => {
    // Prepare
    const t = setup();
    await t.subscribe("c1");
    t.push.responders.set("c1", {
      identity: ALICE,
      respond: (frame) => ({
        type: "process-skill-script-result",
        invocationId: frame.invocationId,
        result: { files: ["a.ts"] },
        logs: [{ level: "info", message: "listed" }],
      }),
    });

    // Act
    const outcome = await t.foot.execute(t.request());

    // Assess
    expect(outcome).toEqual({ routed: true, result: { files: ["a.ts"] }, logs: [{ level: "info", message: "listed" }] });
    expect(t.push.framesTo("c1")).toEqual([
      {
        type: "process-skill-script-execute",
        invocationId: "inv-1",
        processId: "p1",
        skillName: "kit",
        scriptName: "local",
        args: { dir: "src" },
        source: "vance.fs.list(args.dir)",
      },
    ]);
    expect(await t.invocations.get("acme", "inv-1")).toBeUndefined();
  });

  it("reports no route when nobody is subscribed or every subscriber is gone", async () => {
    // Prepare
    const t = setup();
    const gone = setup();
    await gone.subscribe("c-gone");
    gone.push.gone.add("c-gone");

    // Act
    const nobody = await t.foot.execute(t.request());
    const allGone = await gone.foot.execute(gone.request());

    // Assess
    expect(nobody).toEqual({ routed: false });
    expect(allGone).toEqual({ routed: false });
    expect(await gone.invocations.get("acme", "inv-1")).toBeUndefined();
  });

  it("moves on to the next subscriber when the first one is gone", async () => {
    // Prepare
    const t = setup();
    await t.subscribe("c1");
    await t.subscribe("c2");
    const [first, second] = await t.connections.subscribers("acme", "p1");
    t.push.gone.add(first!);
    t.push.responders.set(second!, {
      identity: ALICE,
      respond: (frame) => ({ type: "process-skill-script-result", invocationId: frame.invocationId, result: "from second" }),
    });

    // Act
    const outcome = await t.foot.execute(t.request());

    // Assess
    expect(outcome).toEqual({ routed: true, result: "from second", logs: [] });
  });

  it("turns a client error into FootScriptFailed with the client's message and logs", async () => {
    // Prepare
    const t = setup();
    await t.subscribe("c1");
    t.push.responders.set("c1", {
      identity: ALICE,
      respond: (frame) => ({
        type: "process-skill-script-result",
        invocationId: frame.invocationId,
        error: { code: "ScriptError", message: "boom" },
        logs: [{ level: "error", message: "before boom" }],
      }),
    });

    // Act
    const error = await failureOf(t.foot.execute(t.request()));

    // Assess
    expect(error).toBeInstanceOf(FootScriptFailed);
    expect(error).toMatchObject({
      message: "FOOT script failed on the client: boom",
      clientCode: "ScriptError",
      code: "INVALID_REQUEST",
      logs: [{ level: "error", message: "before boom" }],
    });
  });

  it("times out without an answer and refuses the late answer", async () => {
    // Prepare
    const t = setup(200);
    await t.subscribe("c1");
    let invocationId = "";
    t.push.responders.set("c1", {
      identity: ALICE,
      respond: (frame) => {
        invocationId = frame.invocationId;
        return undefined;
      },
    });

    // Act
    const error = await failureOf(t.foot.execute(t.request()));
    await t.router(
      { identity: ALICE, connectionId: "c1" },
      JSON.stringify({ type: "process-skill-script-result", invocationId, result: "too late" }),
    );

    // Assess
    expect(error).toBeInstanceOf(FootScriptTimeout);
    expect(t.push.framesTo("c1").at(-1)).toEqual({
      type: "error",
      error: { code: "INVALID_REQUEST", message: expect.stringContaining("unknown, expired, already answered") },
    });
  });

  it("accepts an answer only from the connection the script was sent to, and never across tenants", async () => {
    // Prepare
    const t = setup(1_000);
    await t.subscribe("c1");
    await t.connections.put({ connectionId: "c-other", identity: ALICE });
    await t.connections.put({ connectionId: "c-evil", identity: MALLORY });
    t.push.responders.set("c1", {
      identity: ALICE,
      respond: (frame) => {
        // Two forged answers first, then the real one.
        void t.router(
          { identity: ALICE, connectionId: "c-other" },
          JSON.stringify({ type: "process-skill-script-result", invocationId: frame.invocationId, result: "forged" }),
        );
        void t.router(
          { identity: MALLORY, connectionId: "c1" },
          JSON.stringify({ type: "process-skill-script-result", invocationId: frame.invocationId, result: "cross-tenant" }),
        );
        return { type: "process-skill-script-result", invocationId: frame.invocationId, result: "genuine" };
      },
    });

    // Act
    const outcome = await t.foot.execute(t.request());

    // Assess
    expect(outcome).toEqual({ routed: true, result: "genuine", logs: [] });
    expect(t.push.framesTo("c-other")).toEqual([{ type: "error", error: expect.objectContaining({ code: "INVALID_REQUEST" }) }]);
  });

  it("refuses a script whose frame would not fit one WebSocket message, pushing nothing", async () => {
    // Prepare
    const t = setup();
    await t.subscribe("c1");

    // Act
    const error = await failureOf(t.foot.execute(t.request({ source: "x".repeat(130_000) })));

    // Assess
    expect(error).toBeInstanceOf(FootScriptTooLarge);
    expect(t.push.sent).toEqual([]);
  });
});

describe("process-skill-script-result frames", () => {
  it.each([
    ["both result and error", { result: 1, error: { message: "x" } }],
    ["neither result nor error", {}],
    ["an unknown field", { result: 1, extra: true }],
    ["a malformed log entry", { result: 1, logs: [{ level: "loud", message: "x" }] }],
  ])("are refused with %s", async (_label, fields) => {
    // Prepare
    const t = setup();
    await t.connections.put({ connectionId: "c1", identity: ALICE });

    // Act
    await t.router(
      { identity: ALICE, connectionId: "c1" },
      JSON.stringify({ type: "process-skill-script-result", invocationId: "inv-1", ...fields }),
    );

    // Assess
    expect(t.push.framesTo("c1")).toEqual([
      { type: "error", error: { code: "INVALID_REQUEST", message: expect.stringContaining("process-skill-script-result") } },
    ]);
  });
});

describe("FootRouter: only the process owner's own connections", () => {
  it("skips another user's subscribed socket (even a tenant-admin's) and routes to the owner's", async () => {
    // Prepare
    const t = setup();
    await t.subscribe("c-bob", "p1", BOB);
    await t.subscribe("c-alice", "p1", ALICE);
    t.push.responders.set("c-bob", {
      identity: BOB,
      respond: (f) => ({ type: "process-skill-script-result", invocationId: f.invocationId, result: "forged" }),
    });
    t.push.responders.set("c-alice", {
      identity: ALICE,
      respond: (f) => ({ type: "process-skill-script-result", invocationId: f.invocationId, result: "real" }),
    });

    // Act
    const outcome = await t.foot.execute(t.request());

    // Assess
    expect(outcome).toMatchObject({ routed: true, result: "real" });
    expect(t.push.framesTo("c-bob")).toEqual([]);
  });

  it("answers not routed when only other users subscribe, and when the process has no owner", async () => {
    // Prepare
    const t = setup();
    await t.subscribe("c-bob", "p1", BOB);
    await t.subscribe("c-alice", "p2", ALICE);

    // Act
    const othersOnly = await t.foot.execute(t.request());
    const ownerless = await t.foot.execute(t.request({ processId: "p2", owner: undefined }));

    // Assess
    expect(othersOnly).toEqual({ routed: false });
    expect(ownerless).toEqual({ routed: false });
    expect(t.push.sent).toEqual([]);
  });

  it("refuses an answer sent from a socket the call did not go to", async () => {
    // Prepare
    const t = setup(300);
    await t.subscribe("c-alice", "p1", ALICE);
    await t.connections.put({ connectionId: "c-bob", identity: BOB });
    t.push.responders.set("c-alice", { identity: ALICE, respond: () => undefined });
    const pending = t.foot.execute(t.request());
    await new Promise((resolve) => setTimeout(resolve, 20));

    // Act: bob forges the answer for the invocation pushed to alice's socket
    await t.router(
      { identity: BOB, connectionId: "c-bob" },
      JSON.stringify({ type: "process-skill-script-result", invocationId: "inv-1", result: "forged" }),
    );

    // Assess
    expect(await failureOf(pending)).toBeInstanceOf(FootScriptTimeout);
  });
});
