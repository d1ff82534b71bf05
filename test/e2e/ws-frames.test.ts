import { WebSocket } from "ws";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { issueToken } from "../../shared/auth/token-issuer.js";
import { ApiClient, LANE_WAIT_SECONDS, FrameInbox, ofType, skillMd } from "./support/api-client.js";
import type { ActivateResult, Process } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";
import { connectWebSocket, WebSocketRejected } from "./support/ws-client.js";
import type { WsTestClient } from "./support/ws-client.js";

/**
 * API.md "WebSocket frames" with a real `ws` client against the real $connect authorizer and
 * $default router; results and scheduled turns come back through PostToConnection.
 */

const TENANT = "acme";
const PROJECT = "live";

let stack: LocalStack;
let api: ApiClient;
let token: string;
let outsiderToken: string;
let otherTenantToken: string;
const open: WsTestClient[] = [];

beforeAll(async () => {
  stack = await startLocalStack();
  token = await stack.token({ tenant: TENANT, login: "carol", projects: [PROJECT], roles: [`project-admin:${PROJECT}`] });
  outsiderToken = await stack.token({ tenant: TENANT, login: "dave", projects: ["elsewhere"] });
  otherTenantToken = await stack.token({ tenant: "globex", login: "eve", projects: [PROJECT], roles: ["tenant-admin"] });
  api = new ApiClient(stack.httpUrl, token);
  const saved = await api.putDocument(
    TENANT,
    PROJECT,
    "_vance/skills/announce/SKILL.md",
    skillMd("title: Announce\ndescription: Announces itself\nversion: 1.0.0\naction: Announce the plan."),
  );
  expect(saved.status).toBe(200);
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await stack?.close();
});

async function connect(withToken = token): Promise<FrameInbox> {
  const client = await connectWebSocket(stack.wsUrl, withToken);
  open.push(client);
  return new FrameInbox(client);
}

async function spawn(recipe = "default"): Promise<Process> {
  const response = await api.spawn(TENANT, `ws-${Math.random().toString(36).slice(2, 10)}`, { recipe, projectId: PROJECT });
  expect(response.status).toBe(201);
  return response.json;
}

describe("connecting", () => {
  it("refuses the handshake with 401 without a token, with a token of another secret, and with garbage", async () => {
    // Prepare
    const forged = await issueToken({ tenant: TENANT, login: "carol", projects: [PROJECT], roles: [] }, "forged-secret", { ttl: 600 });

    // Act
    const outcomes = await Promise.all(
      [undefined, forged, "garbage"].map((t) =>
        connectWebSocket(stack.wsUrl, t).then(
          (c) => c.close().then(() => 0),
          (e: unknown) => e,
        ),
      ),
    );

    // Assess
    for (const outcome of outcomes) {
      expect(outcome).toBeInstanceOf(WebSocketRejected);
      expect((outcome as WebSocketRejected).statusCode).toBe(401);
    }
  });
});

describe("client frames", () => {
  it("skill-list answers skill-list-result {skills, active}: the effective skills and the process's active skills", async () => {
    // Prepare
    const process = await spawn("analyze");
    const inbox = await connect();
    const effective = await api.effective(TENANT, PROJECT);

    // Act
    inbox.send({ type: "skill-list", projectId: PROJECT });
    const plain = await inbox.next<{ skills: unknown[]; active: unknown[] }>(ofType("skill-list-result"));
    inbox.send({ type: "skill-list", projectId: PROJECT, processId: process.processId });
    const withProcess = await inbox.next<{ skills: unknown[]; active: unknown[] }>(ofType("skill-list-result"));

    // Assess
    expect(plain).toMatchObject({ type: "skill-list-result", skills: effective.json.skills, active: [] });
    expect(withProcess).toMatchObject({ type: "skill-list-result", skills: effective.json.skills, active: process.activeSkills });
    expect(withProcess.active).toEqual([expect.objectContaining({ name: "typescript-style", fromRecipe: true, activatedBy: "recipe" })]);
  });

  it("process-skill answers process-skill-result QUEUED, then DONE with the lane's result", async () => {
    // Prepare
    const process = await spawn();
    const inbox = await connect();

    // Act
    inbox.send({
      type: "process-skill",
      processId: process.processId,
      command: "ACTIVATE",
      skillName: "code-review",
      requestId: "ws-activate-1",
    });
    const queued = await inbox.next(ofType("process-skill-result", { requestId: "ws-activate-1", status: "QUEUED" }));
    const done = await inbox.next<{ result: ActivateResult }>(
      ofType("process-skill-result", { requestId: "ws-activate-1", status: "DONE" }),
    );
    const over = await api.process(TENANT, process.processId);

    // Assess
    expect(queued).toMatchObject({ type: "process-skill-result", requestId: "ws-activate-1", status: "QUEUED" });
    expect(done).toMatchObject({ type: "process-skill-result", requestId: "ws-activate-1", status: "DONE" });
    expect(done.result).toEqual({ activeSkills: over.json.activeSkills, turnScheduled: false });
    expect(over.json.activeSkills.map((s) => s.name)).toEqual(["code-review"]);
  });

  it("process-skill reports a refused activation as process-skill-result FAILED with the API error code", async () => {
    // Prepare
    const process = await spawn("analyze");
    const inbox = await connect();

    // Act
    inbox.send({
      type: "process-skill",
      processId: process.processId,
      command: "ACTIVATE",
      skillName: "announce",
      requestId: "ws-refused",
    });
    const failed = await inbox.next(ofType("process-skill-result", { requestId: "ws-refused", status: "FAILED" }));

    // Assess
    expect(failed).toMatchObject({ error: { code: "SKILL_NOT_ALLOWED", message: "Skill 'announce' is not allowed by recipe 'analyze'" } });
  });

  it("process-subscribe delivers process-turn-scheduled {processId, reason, pending} when an activation schedules a turn", async () => {
    // Prepare
    const process = await spawn();
    const subscriber = await connect();
    const bystander = await connect();
    subscriber.send({ type: "process-subscribe", processId: process.processId });
    await subscriber.next(ofType("process-subscribed"));

    // Act
    const activation = await api.steer(TENANT, process.processId, { command: "ACTIVATE", skillName: "announce" }, LANE_WAIT_SECONDS);
    const scheduled = await subscriber.next<Record<string, unknown>>(ofType("process-turn-scheduled"));
    const result = await subscriber.next(ofType("process-skill-result", { requestId: activation.json.requestId }));

    // Assess
    expect(scheduled).toEqual({
      type: "process-turn-scheduled",
      processId: process.processId,
      reason: "action",
      pending: [expect.objectContaining({ sender: "_skill", text: "Announce the plan." })],
    });
    expect(result).toMatchObject({ status: "DONE", result: { turnScheduled: true } });
    expect(bystander.ofType("process-turn-scheduled")).toEqual([]);
  });

  it.each([
    ["text that is not JSON", "{oops"],
    ["a JSON array", "[1,2]"],
    ["a frame without type", JSON.stringify({ processId: "x" })],
    ["an unknown type", JSON.stringify({ type: "process-explode" })],
    ["a process-skill without processId", JSON.stringify({ type: "process-skill", command: "ACTIVATE", skillName: "code-review" })],
    ["a process-skill with an unknown command", JSON.stringify({ type: "process-skill", processId: "p", command: "EXPLODE" })],
    ["a skill-list with a numeric projectId", JSON.stringify({ type: "skill-list", projectId: 5 })],
  ])("answers %s with an error frame {error: INVALID_REQUEST} and keeps the connection open", async (_what, frame) => {
    // Prepare
    const inbox = await connect();

    // Act
    inbox.send(frame);
    const error = await inbox.next(ofType("error"));
    inbox.send({ type: "skill-list", projectId: PROJECT });
    const after = await inbox.next(ofType("skill-list-result"));

    // Assess
    expect(error).toEqual({ type: "error", error: { code: "INVALID_REQUEST", message: expect.any(String) } });
    expect(inbox.client.socket.readyState).toBe(WebSocket.OPEN);
    expect(after).toMatchObject({ type: "skill-list-result" });
  });

  it("answers a binary frame with an error frame and keeps the connection open", async () => {
    // Prepare
    const inbox = await connect();

    // Act
    inbox.client.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    const error = await inbox.next(ofType("error"));

    // Assess
    expect(error).toMatchObject({ error: { code: "INVALID_REQUEST" } });
    expect(inbox.client.socket.readyState).toBe(WebSocket.OPEN);
  });
});

describe("authorization over WebSocket", () => {
  it("answers FORBIDDEN to a non-member's skill-list, process-subscribe and process-skill, and changes nothing", async () => {
    // Prepare
    const process = await spawn();
    const inbox = await connect(outsiderToken);

    // Act
    inbox.send({ type: "skill-list", projectId: PROJECT, requestId: "list" });
    inbox.send({ type: "process-subscribe", processId: process.processId, requestId: "sub" });
    inbox.send({ type: "process-skill", processId: process.processId, command: "ACTIVATE", skillName: "code-review", requestId: "steer" });
    const errors = await Promise.all(["list", "sub", "steer"].map((requestId) => inbox.next(ofType("error", { requestId }))));
    await stack.laneIdle();

    // Assess
    for (const error of errors) expect(error).toMatchObject({ error: { code: "FORBIDDEN" } });
    expect((await api.process(TENANT, process.processId)).json.activeSkills).toEqual([]);
  });

  it("answers PROCESS_NOT_FOUND for another tenant's process", async () => {
    // Prepare
    const process = await spawn();
    const inbox = await connect(otherTenantToken);

    // Act
    inbox.send({ type: "process-subscribe", processId: process.processId, requestId: "sub" });
    inbox.send({ type: "process-skill", processId: process.processId, command: "CLEAR_ALL", requestId: "steer" });
    const errors = await Promise.all(["sub", "steer"].map((requestId) => inbox.next(ofType("error", { requestId }))));

    // Assess
    for (const error of errors) expect(error).toMatchObject({ error: { code: "PROCESS_NOT_FOUND" } });
  });
});
