import { describe, expect, it } from "vitest";
import { createSkillsApp } from "../../shared/app/skills-app.js";
import { parseIdentity } from "../../shared/auth/identity.js";
import type { Identity } from "../../shared/auth/identity.js";
import { MAX_SUBSCRIPTIONS_PER_CONNECTION } from "../../shared/connections/connection-store.js";
import { InMemoryConnectionStore } from "../../shared/connections/in-memory-connection-store.js";
import { RecordingConnectionPush } from "../support/recording-connection-push.js";
import type { ServerFrame } from "../../shared/connections/server-frames.js";
import { createWebSocketProcessEvents } from "../../shared/connections/websocket-process-events.js";
import { createWsFrameRouter } from "../../shared/app/ws-frame-router.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { InMemoryLane } from "../../shared/lanes/in-memory-lane.js";
import { InMemoryProcessStore } from "../../shared/processes/in-memory-process-store.js";
import { InMemoryRequestStore } from "../../shared/processes/in-memory-request-store.js";
import { skillMd } from "../support/skill-fixtures.js";
import { EmptyLayer, FakeRenderer, RECIPES } from "../support/steering-harness.js";

const identity = (login: string, tenant: string, projects: string[], roles: string[] = []): Identity =>
  parseIdentity({ login, tenant, projects, roles });

const ALICE = identity("alice", "acme", ["proj1"]);
const BOB = identity("bob", "acme", ["proj1"]);
const OUTSIDER = identity("olga", "acme", ["proj2"]);
const ADMIN = identity("ada", "acme", [], ["tenant-admin"]);
const MALLORY = identity("mallory", "evil", ["proj1"], ["tenant-admin"]);

/** The app wired like production: lane completions fan out through the WebSocket ProcessEvents. */
async function setup() {
  const documents = new InMemoryDocumentStore();
  const requests = new InMemoryRequestStore({ sleep: async () => {} });
  const lane = new InMemoryLane();
  const connections = new InMemoryConnectionStore();
  const push = new RecordingConnectionPush({ connections });
  const processes = new InMemoryProcessStore();
  let ids = 0;
  const app = createSkillsApp({
    documents,
    bundled: new EmptyLayer(),
    processes,
    requests,
    lane,
    renderer: new FakeRenderer(),
    events: createWebSocketProcessEvents({ connections, push }),
    newId: () => `id-${++ids}`,
    logger: { warn: () => undefined },
  });
  for (const [name, yaml] of Object.entries(RECIPES)) await documents.put("acme", "_tenant", `_vance/recipes/${name}.yaml`, yaml);
  for (const [name, yaml] of Object.entries(RECIPES)) await documents.put("evil", "_tenant", `_vance/recipes/${name}.yaml`, yaml);
  await documents.put("acme", "_tenant", "_vance/skills/alpha/SKILL.md", skillMd({ title: "Alpha", extra: "tags: [x]" }));
  await documents.put("acme", "_tenant", "_vance/skills/beta/SKILL.md", skillMd({ title: "Beta", extra: "action: 'Start beta now'" }));
  await documents.put("acme", "_user_alice", "_vance/skills/mine/SKILL.md", skillMd({ title: "Alice only" }));
  const errors: unknown[] = [];
  const route = createWsFrameRouter({
    app,
    connections,
    push,
    newRequestId: () => `gen-${++ids}`,
    logger: { error: (_m, extra) => errors.push(extra) },
  });

  const connect = async (connectionId: string, who: Identity) => {
    await connections.put({ connectionId, identity: who });
    return (frame: unknown) => route({ identity: who, connectionId }, typeof frame === "string" ? frame : JSON.stringify(frame));
  };
  const drain = () =>
    lane.drain((message) => app.applyLaneMessage(message, { messageId: message.requestId, groupId: undefined, receiveCount: 1 }));
  const spawn = (projectId = "proj1", tenant = "acme") =>
    app.spawn(tenant, { login: "alice" }, { sessionId: "s1", recipe: "open", projectId });
  return { app, connections, push, requests, connect, drain, spawn, errors, documents, processes };
}

const types = (frames: ServerFrame[]) => frames.map((f) => f.type);

describe("ws frame router: malformed frames", () => {
  it("answers bad JSON and unknown types with an error frame, and the connection keeps working", async () => {
    // Prepare
    const t = await setup();
    const send = await t.connect("c1", ALICE);
    const p = await t.spawn();

    // Act
    await send("{not json");
    await send({ type: "process-explode", requestId: "x1" });
    await send({ type: "process-subscribe", processId: p.processId });

    // Assess
    expect(t.push.framesTo("c1")).toEqual([
      { type: "error", error: { code: "INVALID_REQUEST", message: "Frame is not valid JSON" } },
      { type: "error", error: { code: "INVALID_REQUEST", message: expect.stringContaining("Unknown frame type") }, requestId: "x1" },
      { type: "process-subscribed", processId: p.processId },
    ]);
  });
});

describe("ws frame router: process-subscribe", () => {
  it("stores the subscription and acknowledges it", async () => {
    // Prepare
    const t = await setup();
    const send = await t.connect("c1", ALICE);
    const p = await t.spawn();

    // Act
    await send({ type: "process-subscribe", processId: p.processId, requestId: "sub-1" });

    // Assess
    expect(t.push.framesTo("c1")).toEqual([{ type: "process-subscribed", processId: p.processId, requestId: "sub-1" }]);
    expect(await t.connections.subscribers("acme", p.processId)).toEqual(["c1"]);
  });

  it("reports another tenant's process as PROCESS_NOT_FOUND, even to that tenant's admin, and stores nothing", async () => {
    // Prepare
    const t = await setup();
    const send = await t.connect("m1", MALLORY);
    const p = await t.spawn();

    // Act
    await send({ type: "process-subscribe", processId: p.processId });

    // Assess
    expect(t.push.framesTo("m1")).toEqual([
      { type: "error", error: { code: "PROCESS_NOT_FOUND", message: `Process '${p.processId}' not found` } },
    ]);
    expect(await t.connections.subscriptionsOf("evil", "m1")).toEqual([]);
    expect(await t.connections.subscribers("acme", p.processId)).toEqual([]);
  });

  it("refuses everyone but the process's own user with FORBIDDEN: a non-member, another member, a tenant-admin", async () => {
    // Prepare
    const t = await setup();
    const outsider = await t.connect("o1", OUTSIDER);
    const bob = await t.connect("b1", BOB);
    const admin = await t.connect("a1", ADMIN);
    const owner = await t.connect("c1", ALICE);
    const p = await t.spawn();

    // Act
    await outsider({ type: "process-subscribe", processId: p.processId });
    await bob({ type: "process-subscribe", processId: p.processId });
    await admin({ type: "process-subscribe", processId: p.processId });
    await owner({ type: "process-subscribe", processId: p.processId });

    // Assess
    for (const id of ["o1", "b1", "a1"])
      expect(t.push.framesTo(id)).toEqual([{ type: "error", error: { code: "FORBIDDEN", message: expect.any(String) } }]);
    expect(t.push.framesTo("c1")).toEqual([{ type: "process-subscribed", processId: p.processId }]);
    expect(await t.connections.subscribers("acme", p.processId)).toEqual(["c1"]);
  });

  it("refuses a subscription beyond the per-connection limit", async () => {
    // Prepare
    const t = await setup();
    const send = await t.connect("c1", ALICE);
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_CONNECTION; i++) await t.connections.subscribe("acme", "c1", `other-${i}`);
    const p = await t.spawn();

    // Act
    await send({ type: "process-subscribe", processId: p.processId });

    // Assess
    expect(t.push.framesTo("c1")).toEqual([
      { type: "error", error: { code: "INVALID_REQUEST", message: expect.stringContaining("at most") } },
    ]);
  });
});

describe("ws frame router: process-skill", () => {
  it("answers QUEUED at once, then DONE with the result when the lane applied it", async () => {
    // Prepare
    const t = await setup();
    const send = await t.connect("c1", ALICE);
    const p = await t.spawn();

    // Act
    await send({ type: "process-skill", processId: p.processId, command: "ACTIVATE", skillName: "alpha", requestId: "r1" });
    const beforeLane = t.push.framesTo("c1");
    await t.drain();

    // Assess
    expect(beforeLane).toEqual([{ type: "process-skill-result", requestId: "r1", processId: p.processId, status: "QUEUED" }]);
    const frames = t.push.framesTo("c1");
    expect(frames).toHaveLength(2);
    expect(frames[1]).toMatchObject({
      type: "process-skill-result",
      requestId: "r1",
      processId: p.processId,
      status: "DONE",
      result: { activeSkills: [{ name: "alpha", resolvedFromScope: "VANCE" }], turnScheduled: false },
    });
    expect(await t.connections.subscribers("acme", p.processId)).toEqual(["c1"]);
  });

  it("chooses a requestId when the frame has none and uses it for both answers", async () => {
    // Prepare
    const t = await setup();
    const send = await t.connect("c1", ALICE);
    const p = await t.spawn();

    // Act
    await send({ type: "process-skill", processId: p.processId, command: "CLEAR_ALL" });
    await t.drain();

    // Assess
    const frames = t.push.framesTo("c1") as { requestId: string; status: string }[];
    expect(frames.map((f) => f.status)).toEqual(["QUEUED", "DONE"]);
    expect(frames[0]!.requestId).toMatch(/^gen-/);
    expect(frames[1]!.requestId).toBe(frames[0]!.requestId);
  });

  it("pushes a FAILED result with the API error code when the lane refuses the request", async () => {
    // Prepare
    const t = await setup();
    const send = await t.connect("c1", ALICE);
    const p = await t.spawn();

    // Act
    await send({ type: "process-skill", processId: p.processId, command: "ACTIVATE", skillName: "nosuch", requestId: "r1" });
    await t.drain();

    // Assess
    expect(t.push.framesTo("c1")[1]).toEqual({
      type: "process-skill-result",
      requestId: "r1",
      processId: p.processId,
      status: "FAILED",
      error: { code: "SKILL_NOT_FOUND", message: "Skill 'nosuch' not found" },
    });
  });

  it("pushes process-turn-scheduled to subscribers when activation schedules a turn", async () => {
    // Prepare
    const t = await setup();
    const send = await t.connect("c1", ALICE);
    const p = await t.spawn();

    // Act
    await send({ type: "process-skill", processId: p.processId, command: "ACTIVATE", skillName: "beta", requestId: "r1" });
    await t.drain();

    // Assess
    const frames = t.push.framesTo("c1");
    expect(types(frames)).toEqual(["process-skill-result", "process-turn-scheduled", "process-skill-result"]);
    expect(frames[1]).toMatchObject({
      type: "process-turn-scheduled",
      processId: p.processId,
      reason: "action",
      pending: [{ sender: "_skill", text: "Start beta now", kind: "action" }],
    });
  });

  it("does not enqueue for another tenant's process (PROCESS_NOT_FOUND) or a non-member (FORBIDDEN)", async () => {
    // Prepare
    const t = await setup();
    const mallory = await t.connect("m1", MALLORY);
    const outsider = await t.connect("o1", OUTSIDER);
    const p = await t.spawn();

    // Act
    await mallory({ type: "process-skill", processId: p.processId, command: "CLEAR_ALL", requestId: "rm" });
    await outsider({ type: "process-skill", processId: p.processId, command: "CLEAR_ALL", requestId: "ro" });
    const drained = await t.drain();

    // Assess
    expect(t.push.framesTo("m1")).toEqual([
      { type: "error", error: { code: "PROCESS_NOT_FOUND", message: expect.any(String) }, requestId: "rm" },
    ]);
    expect(t.push.framesTo("o1")).toEqual([{ type: "error", error: { code: "FORBIDDEN", message: expect.any(String) }, requestId: "ro" }]);
    expect(drained.delivered).toBe(0);
    expect(await t.requests.get("acme", p.processId, "rm")).toBeUndefined();
    expect(await t.requests.get("acme", p.processId, "ro")).toBeUndefined();
  });

  it("refuses an ACTIVATE without skillName before anything is queued", async () => {
    // Prepare
    const t = await setup();
    const send = await t.connect("c1", ALICE);
    const p = await t.spawn();

    // Act
    await send({ type: "process-skill", processId: p.processId, command: "ACTIVATE", requestId: "r1" });

    // Assess
    expect(t.push.framesTo("c1")).toEqual([
      { type: "error", error: { code: "INVALID_REQUEST", message: "ACTIVATE needs a skillName" }, requestId: "r1" },
    ]);
    expect(await t.requests.get("acme", p.processId, "r1")).toBeUndefined();
  });

  it("answers a repeated, already settled requestId with its stored result and does not apply it again", async () => {
    // Prepare
    const t = await setup();
    const send = await t.connect("c1", ALICE);
    const p = await t.spawn();
    await send({ type: "process-skill", processId: p.processId, command: "ACTIVATE", skillName: "alpha", requestId: "r1" });
    await t.drain();
    const versionAfterFirst = (await t.app.getProcess("acme", p.processId)).version;

    // Act
    await send({ type: "process-skill", processId: p.processId, command: "ACTIVATE", skillName: "alpha", requestId: "r1" });
    const drained = await t.drain();

    // Assess
    const frames = t.push.framesTo("c1");
    expect(frames).toHaveLength(3);
    expect(frames[2]).toEqual(frames[1]);
    expect(drained.delivered).toBe(0);
    expect((await t.app.getProcess("acme", p.processId)).version).toBe(versionAfterFirst);
  });

  it("treats the same requestId on another process as a new request (requestIds are scoped to their process)", async () => {
    // Prepare
    const t = await setup();
    const send = await t.connect("c1", ALICE);
    const p1 = await t.spawn();
    const p2 = await t.app.spawn("acme", { login: "alice" }, { sessionId: "s1", recipe: "open", projectId: "proj1", name: "second" });
    await send({ type: "process-skill", processId: p1.processId, command: "CLEAR_ALL", requestId: "shared" });

    // Act
    await send({ type: "process-skill", processId: p2.processId, command: "CLEAR_ALL", requestId: "shared" });

    // Assess
    const answers = t.push.framesTo("c1").filter((f) => (f as { requestId?: string }).requestId === "shared");
    expect(answers.some((f) => (f as { type: string }).type === "error")).toBe(false);
    expect(await t.app.getRequest("acme", p2.processId, "shared")).toMatchObject({ processId: p2.processId, kind: "skill.clearAll" });
  });

  it("answers FAILED under the announced requestId when enqueueing fails after the QUEUED answer", async () => {
    // Prepare
    const t = await setup();
    await t.connect("c1", ALICE);
    const p = await t.spawn();
    const broken = createWsFrameRouter({
      app: { ...t.app, steerSkill: async () => Promise.reject(new Error("SQS unavailable")) },
      connections: t.connections,
      push: t.push,
      logger: { error: (_m, extra) => t.errors.push(extra) },
    });

    // Act
    await broken(
      { identity: ALICE, connectionId: "c1" },
      JSON.stringify({ type: "process-skill", processId: p.processId, command: "CLEAR_ALL", requestId: "r1" }),
    );

    // Assess
    expect(t.push.framesTo("c1")).toEqual([
      { type: "process-skill-result", requestId: "r1", processId: p.processId, status: "QUEUED" },
      {
        type: "process-skill-result",
        requestId: "r1",
        processId: p.processId,
        status: "FAILED",
        error: { code: "INTERNAL", message: "Internal error" },
      },
    ]);
    expect(t.errors).toHaveLength(1);
  });
});

describe("ws frame router: results reach subscribers only", () => {
  it("pushes a lane result to every subscriber of that process and to no other connection", async () => {
    // Prepare
    const t = await setup();
    const alice = await t.connect("c-alice", ALICE);
    const second = await t.connect("c-alice-2", ALICE);
    const other = await t.connect("c-other", ALICE);
    const p = await t.spawn();
    const q = await t.app.spawn("acme", { login: "alice" }, { sessionId: "s1", recipe: "open", projectId: "proj1", name: "q" });
    await second({ type: "process-subscribe", processId: p.processId });
    await other({ type: "process-subscribe", processId: q.processId });

    // Act
    await alice({ type: "process-skill", processId: p.processId, command: "ACTIVATE", skillName: "alpha", requestId: "r1" });
    await t.drain();

    // Assess
    expect(t.push.framesTo("c-alice-2")).toEqual([
      { type: "process-subscribed", processId: p.processId },
      expect.objectContaining({ type: "process-skill-result", requestId: "r1", status: "DONE" }),
    ]);
    expect(types(t.push.framesTo("c-other"))).toEqual(["process-subscribed"]);
  });
});

describe("ws frame router: skill-list", () => {
  it("lists the effective skills as API.md SkillSummary objects, with the caller's USER layer, and no active skills without processId", async () => {
    // Prepare
    const t = await setup();
    const send = await t.connect("c1", ALICE);

    // Act
    await send({ type: "skill-list", projectId: "proj1", requestId: "l1" });

    // Assess
    const [frame] = t.push.framesTo("c1") as unknown as [
      { type: string; skills: Record<string, unknown>[]; active: unknown[]; requestId: string },
    ];
    expect(frame.type).toBe("skill-list-result");
    expect(frame.requestId).toBe("l1");
    expect(frame.active).toEqual([]);
    expect(frame.skills.map((s) => s.name)).toEqual(["alpha", "beta", "mine"]);
    expect(Object.keys(frame.skills[0]!)).toEqual([
      "name",
      "title",
      "description",
      "version",
      "tags",
      "source",
      "lifecycle",
      "triggers",
      "arguments",
      "run",
      "disableModelInvocation",
      "userInvocable",
    ]);
    expect(frame.skills[0]).toEqual({
      name: "alpha",
      title: "Alpha",
      description: "Does one thing well",
      version: "1.0.0",
      tags: ["x"],
      source: "VANCE",
      lifecycle: "sticky",
      triggers: [],
      arguments: false,
      run: { target: "inline" },
      disableModelInvocation: false,
      userInvocable: true,
    });
    expect(frame.skills[2]).toMatchObject({ name: "mine", source: "USER" });
  });

  it("leaves out user-invocable: false skills, which the effective list still shows with the flag", async () => {
    // Prepare
    const t = await setup();
    await t.documents.put(
      "acme",
      "_tenant",
      "_vance/skills/hidden/SKILL.md",
      "---\nname: hidden\ndescription: model only\nuser-invocable: false\n---\n",
    );
    const send = await t.connect("c1", ALICE);

    // Act
    await send({ type: "skill-list", projectId: "proj1" });
    const effective = await t.app.listEffective("acme", { login: "alice" }, "proj1");

    // Assess
    const [frame] = t.push.framesTo("c1") as unknown as [{ skills: { name: string }[] }];
    expect(frame.skills.map((s) => s.name)).not.toContain("hidden");
    expect(effective.find((s) => s.name === "hidden")).toMatchObject({ userInvocable: false });
  });

  it("includes the process's active skills when processId is given (metadata: a tenant-admin may read them)", async () => {
    // Prepare
    const t = await setup();
    const send = await t.connect("c1", ADMIN);
    const p = await t.spawn();
    await t.app.steerSkill("acme", p.processId, { login: "alice" }, { command: "ACTIVATE", skillName: "alpha" });
    await t.drain();

    // Act
    await send({ type: "skill-list", projectId: "proj1", processId: p.processId });

    // Assess
    const [frame] = t.push.framesTo("c1") as unknown as [{ skills: { name: string }[]; active: { name: string }[]; processId: string }];
    expect(frame.processId).toBe(p.processId);
    expect(frame.active.map((s) => s.name)).toEqual(["alpha"]);
    // The admin does not see Alice's personal skill.
    expect(frame.skills.map((s) => s.name)).toEqual(["alpha", "beta"]);
  });

  it("gives the owner the active skills' args and a tenant-admin the active skills without them (issue 28: args are the owner's)", async () => {
    // Prepare
    const t = await setup();
    const owner = await t.connect("c1", ALICE);
    const admin = await t.connect("a1", ADMIN);
    const p = await t.spawn();
    await t.app.steerSkill("acme", p.processId, { login: "alice" }, { command: "ACTIVATE", skillName: "alpha" });
    await t.drain();
    // Args as a skill that takes them (or a private skill's `run:`) leaves them on the process.
    await t.processes.update("acme", p.processId, (stored) => ({
      ...stored,
      activeSkills: stored.activeSkills.map((s) => ({ ...s, args: "SECRET-OF-ALICE" })),
    }));

    // Act
    await owner({ type: "skill-list", projectId: "proj1", processId: p.processId });
    await admin({ type: "skill-list", projectId: "proj1", processId: p.processId });

    // Assess
    const [own] = t.push.framesTo("c1") as unknown as [{ active: { name: string; args?: string | null }[] }];
    const [admins] = t.push.framesTo("a1") as unknown as [{ active: { name: string; args?: string | null }[] }];
    expect(own.active).toEqual([expect.objectContaining({ name: "alpha", args: "SECRET-OF-ALICE" })]);
    expect(admins.active).toEqual([expect.objectContaining({ name: "alpha", activatedBy: "explicit" })]);
    expect(JSON.stringify(admins)).not.toContain("SECRET-OF-ALICE");
  });

  it("refuses a project the caller is not a member of, another tenant's process, and a process of another project", async () => {
    // Prepare
    const t = await setup();
    const outsider = await t.connect("o1", OUTSIDER);
    const mallory = await t.connect("m1", MALLORY);
    const admin = await t.connect("a1", ADMIN);
    const p = await t.spawn();

    // Act
    await outsider({ type: "skill-list", projectId: "proj1" });
    await mallory({ type: "skill-list", projectId: "proj1", processId: p.processId });
    await admin({ type: "skill-list", projectId: "proj2", processId: p.processId });

    // Assess
    expect(t.push.framesTo("o1")).toEqual([{ type: "error", error: { code: "FORBIDDEN", message: expect.any(String) } }]);
    expect(t.push.framesTo("m1")).toEqual([{ type: "error", error: { code: "PROCESS_NOT_FOUND", message: expect.any(String) } }]);
    expect(t.push.framesTo("a1")).toEqual([
      { type: "error", error: { code: "INVALID_REQUEST", message: expect.stringContaining("another project") } },
    ]);
  });
});
