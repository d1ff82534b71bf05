import { WebSocket } from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConflictError,
  ForbiddenError,
  InvalidDocumentError,
  NotFoundError,
  SkillsClient,
  SkillsTimeoutError,
  UnauthenticatedError,
} from "skills-service/client";
import type { ProcessTurnScheduledFrame, SubscriptionFrame, WebSocketConstructor, WebSocketLike } from "skills-service/client";
import { skillMd } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * The typed client (client/, imported as `skills-service/client`) against the local stack: every
 * route it wraps, lane calls answered by `Prefer: wait` and by polling, errors as typed classes
 * with the API code, and a WebSocket subscription that survives a dropped socket.
 */

const TENANT = "acme";
const PROJECT = "client";

let stack: LocalStack;
let client: SkillsClient;

const ANNOUNCE = skillMd("title: Announce\ndescription: Announces itself\nversion: 1.0.0\naction: Announce the plan.");
const FORMS = skillMd("title: Forms\ndescription: Fills in forms\nversion: 1.0.0", "Use the reference.");

beforeAll(async () => {
  stack = await startLocalStack();
  const token = await stack.token({ tenant: TENANT, login: "carol", projects: [PROJECT], roles: [`project-admin:${PROJECT}`] });
  client = new SkillsClient({ baseUrl: stack.httpUrl, webSocketUrl: stack.wsUrl, tenant: TENANT, token });
  await client.documents.put(PROJECT, "_vance/skills/announce/SKILL.md", ANNOUNCE);
  await client.documents.put(PROJECT, "_vance/skills/forms/SKILL.md", FORMS);
  await client.documents.put(PROJECT, "_vance/skills/forms/references/fields.md", "name, date");
});

afterAll(async () => {
  await stack?.close();
});

const session = (): string => `s-${Math.random().toString(36).slice(2, 10)}`;

describe("service", () => {
  it("serves /health and the OpenAPI document without a token", async () => {
    // Prepare
    const anonymous = client.withToken(undefined);

    // Act
    const health = await anonymous.health();
    const document = await anonymous.openApi();

    // Assess
    expect(health).toEqual({ status: "ok" });
    expect(document).toMatchObject({
      openapi: "3.1.0",
      paths: { "/brain/{tenant}/processes/{processId}/skill": { post: expect.any(Object) } },
    });
  });
});

describe("documents", () => {
  it("put, get, list and delete a document of a level", async () => {
    // Prepare
    const path = "_vance/skills/notes/SKILL.md";
    const body = skillMd("title: Notes\ndescription: Takes notes\nversion: 1.0.0", "Write it down.");

    // Act
    const saved = await client.documents.put(PROJECT, path, body);
    const read = await client.documents.get(PROJECT, path);
    const listed = await client.documents.list(PROJECT, { prefix: "_vance/skills/notes/" });
    await client.documents.delete(PROJECT, path);
    const gone = await client.documents.get(PROJECT, path).catch((error: unknown) => error);

    // Assess
    expect(saved).toMatchObject({ path, warnings: [] });
    expect(read.text()).toBe(body);
    expect(read.etag).toContain(saved.etag.replace(/"/g, ""));
    expect(listed.map((entry) => entry.path)).toEqual([path]);
    expect(gone).toBeInstanceOf(NotFoundError);
    expect(gone).toMatchObject({ status: 404, code: "DOCUMENT_NOT_FOUND" });
  });

  it("throws INVALID_DOCUMENT with its problems as an InvalidDocumentError", async () => {
    // Act
    const error = await client.documents
      .put(PROJECT, "_vance/skills/broken/SKILL.md", "---\nlifecycle: forever\n---\n")
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(InvalidDocumentError);
    expect(error).toMatchObject({ status: 422, code: "INVALID_DOCUMENT" });
    expect((error as InvalidDocumentError).problems.length).toBeGreaterThan(0);
  });
});

describe("skills", () => {
  it("lists the effective skills, one skill, the shadowed ones and the problems", async () => {
    // Act
    const skills = await client.skills.list({ projectId: PROJECT });
    const withShadowed = await client.skills.listWithShadowed({ projectId: PROJECT });
    const forms = await client.skills.get("forms", { projectId: PROJECT });
    const problems = await client.skills.problems({ projectId: PROJECT });
    const missing = await client.skills.get("no-such-skill", { projectId: PROJECT }).catch((e: unknown) => e);

    // Assess
    expect(skills.map((s) => s.name)).toEqual(expect.arrayContaining(["announce", "forms"]));
    expect(withShadowed.shadowed).toEqual(expect.any(Array));
    expect(forms).toMatchObject({
      name: "forms",
      source: "PROJECT",
      body: "Use the reference.",
      files: [{ path: "references/fields.md", size: 10 }],
    });
    expect(problems).toEqual(expect.any(Array));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ code: "SKILL_NOT_FOUND" });
  });

  it("an unauthenticated call is an UnauthenticatedError", async () => {
    // Act
    const error = await client
      .withToken(undefined)
      .skills.list({ projectId: PROJECT })
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(UnauthenticatedError);
    expect(error).toMatchObject({ status: 401, code: "UNAUTHENTICATED" });
  });
});

describe("processes, steering and turns", () => {
  it("spawns, lists, reads, steers, composes, completes and reads back a turn", async () => {
    // Prepare
    const sessionId = session();

    // Act
    const spawned = await client.processes.spawn(sessionId, { recipe: "default", projectId: PROJECT, name: "main" });
    const taken = await client.processes.spawn(sessionId, { recipe: "default", projectId: PROJECT, name: "main" }).catch((e: unknown) => e);
    const listed = await client.processes.list(sessionId);
    const activated = await client.steering.activate(spawned.processId, "forms", { oneShot: false });
    const active = await client.skills.active(spawned.processId);
    const preview = await client.processes.composition(spawned.processId, { message: "hello", explain: "all" });
    const turn = await client.turns.compose(spawned.processId, { message: "hello" });
    const stored = await client.turns.get(spawned.processId, turn.turnId);
    const file = await client.tools.call<{ path: string; content: string }>(spawned.processId, "skill_read_file", {
      skill: "forms",
      path: "references/fields.md",
    });
    const completed = await client.turns.complete(spawned.processId, turn.turnId, { output: "done" });
    const cleared = await client.steering.clear(spawned.processId, "forms");
    const all = await client.steering.clearAll(spawned.processId);
    const read = await client.processes.get(spawned.processId);

    // Assess
    expect(spawned).toMatchObject({ name: "main", recipe: "default", projectId: PROJECT, sessionId });
    expect(taken).toBeInstanceOf(ConflictError);
    expect(taken).toMatchObject({ status: 409, code: "NAME_TAKEN" });
    expect(listed.map((p) => p.processId)).toEqual([spawned.processId]);
    expect(activated.activeSkills.map((s) => s.name)).toEqual(["forms"]);
    expect(active).toEqual(activated.activeSkills);
    expect(preview.skillSection).toContain("Use the reference.");
    expect(turn.skillSection).toContain("Use the reference.");
    expect(turn.tools).toContain("skill_read_file");
    expect(turn.messages.at(-1)).toMatchObject({ role: "user", text: "hello" });
    expect(stored).toMatchObject({ turnId: turn.turnId, skillSection: turn.skillSection });
    expect(file).toMatchObject({ path: "references/fields.md", content: "name, date" });
    expect(completed.activeSkills.map((s) => s.name)).toEqual(["forms"]);
    expect(cleared.activeSkills).toEqual([]);
    expect(all.activeSkills).toEqual([]);
    expect(read.activeSkills).toEqual([]);
  });

  it("without Prefer: wait, polls the request until it is DONE", async () => {
    // Prepare
    const spawned = await client.processes.spawn(session(), { recipe: "default", projectId: PROJECT });
    const polls: number[] = [];

    // Act
    const answer = await client.steering.send(
      spawned.processId,
      { command: "ACTIVATE", skillName: "forms", requestId: "poll-1" },
      { preferWaitSeconds: 0, onPoll: (p) => polls.push(p.attempt) },
    );
    const record = await client.processes.request(spawned.processId, "poll-1");

    // Assess
    expect(answer.requestId).toBe("poll-1");
    expect(polls.length).toBeGreaterThan(0);
    expect(record).toMatchObject({ requestId: "poll-1", status: "DONE", result: answer.result });
  });

  it("a request that FAILED on the lane, found by polling, is thrown with its API code", async () => {
    // Prepare
    const spawned = await client.processes.spawn(session(), { recipe: "analyze", projectId: PROJECT });

    // Act
    const error = await client.steering.activate(spawned.processId, "announce", { preferWaitSeconds: 0 }).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error).toMatchObject({
      status: 403,
      code: "SKILL_NOT_ALLOWED",
      message: expect.stringContaining("Skill 'announce' is not allowed by recipe 'analyze'"),
    });
  });

  it("gives up with SkillsTimeoutError when the request is still queued at the deadline", async () => {
    // Prepare
    const spawned = await client.processes.spawn(session(), { recipe: "default", projectId: PROJECT });

    // Act
    const error = await client.steering
      .activate(spawned.processId, "forms", { preferWaitSeconds: 0, timeoutMs: 0 })
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(SkillsTimeoutError);
  });

  it("an unknown process is a NotFoundError PROCESS_NOT_FOUND", async () => {
    // Act
    const error = await client.processes.get("no-such-process").catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ code: "PROCESS_NOT_FOUND" });
  });
});

/** A `ws` WebSocket the test can cut off, as a dropped network would. */
function droppableWebSockets(): { Ctor: WebSocketConstructor; drop(): void } {
  const sockets: WebSocket[] = [];
  class Droppable extends WebSocket {
    constructor(url: string) {
      super(url);
      sockets.push(this);
    }
  }
  return { Ctor: Droppable as unknown as new (url: string) => WebSocketLike, drop: () => sockets.at(-1)?.terminate() };
}

describe("WebSocket subscription", () => {
  it("yields typed frames, reconnects after the socket drops, and subscribes again", async () => {
    // Prepare
    const spawned = await client.processes.spawn(session(), { recipe: "default", projectId: PROJECT });
    const sockets = droppableWebSockets();
    const subscription = client.subscribe({ processIds: [spawned.processId], WebSocket: sockets.Ctor, reconnectDelayMs: 50 });
    const isScheduled = (frame: SubscriptionFrame): boolean =>
      frame.type === "process-turn-scheduled" && frame.processId === spawned.processId;
    try {
      await subscription.next((frame) => frame.type === "connection" && frame.state === "open");
      await subscription.next((frame) => frame.type === "process-subscribed");

      // Act
      sockets.drop();
      const reconnecting = await subscription.next((frame) => frame.type === "connection" && frame.state === "reconnecting");
      const reopened = await subscription.next((frame) => frame.type === "connection" && frame.state === "open");
      await subscription.next((frame) => frame.type === "process-subscribed");
      await client.steering.activate(spawned.processId, "announce");
      const scheduled = await subscription.next<ProcessTurnScheduledFrame>(isScheduled);

      // Assess
      expect(reconnecting).toMatchObject({ type: "connection", state: "reconnecting", attempt: 1 });
      expect(reopened).toMatchObject({ type: "connection", state: "open", attempt: 1 });
      expect(scheduled).toMatchObject({
        processId: spawned.processId,
        reason: "action",
        pending: [expect.objectContaining({ sender: "_skill", text: "Announce the plan." })],
      });
    } finally {
      subscription.close();
    }
  });

  it("the iterator ends after close()", async () => {
    // Prepare
    const subscription = client.subscribe();
    await subscription.ready;
    const seen: string[] = [];

    // Act
    const reading = (async () => {
      for await (const frame of subscription) seen.push(frame.type === "connection" ? `connection:${frame.state}` : frame.type);
    })();
    subscription.close();
    await reading;

    // Assess
    expect(seen).toEqual(["connection:open", "connection:closed"]);
  });
});
