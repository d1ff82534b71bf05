import { randomUUID } from "node:crypto";
import * as z from "zod/mini";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as contract from "../../contract/index.js";
import { ApiClient, contractLedger, LANE_WAIT_SECONDS, skillMd } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";
import { connectWebSocket } from "./support/ws-client.js";

/**
 * The answers of one author's and one engine's flow on the local stack, every one checked by the
 * e2e helper against the contract (contract/): success bodies with the route's schema, errors
 * with the error shape and the code's status, and the WebSocket frames with `ServerFrame`.
 */

const TENANT = "acme";
const PROJECT = "contract";

let stack: LocalStack;
let api: ApiClient;
let token: string;

beforeAll(async () => {
  stack = await startLocalStack();
  token = await stack.token({ tenant: TENANT, login: "alice", projects: [PROJECT], roles: [`project-admin:${PROJECT}`] });
  api = new ApiClient(stack.httpUrl, token);
});

afterAll(async () => {
  await stack?.close();
});

describe("the service's answers and the contract", () => {
  it("answers an author's and an engine's whole flow in the contract's shapes", async () => {
    // Prepare
    const skill = skillMd(
      "title: Greeter\ndescription: Greets people\nversion: 1.0.0\ntools: [greet_tool]\narguments:\n  - name: who\n    required: false\ntriggers:\n  - type: KEYWORDS\n    keywords: [hello]",
      "Greet {{ args.who }} warmly.",
    );
    const noVersion = skillMd("title: Bare\ndescription: A skill without a version", "Bare body.");

    // Act
    const saved = await api.putDocument(TENANT, PROJECT, "_vance/skills/greeter/SKILL.md", skill);
    await api.putDocument(TENANT, PROJECT, "_vance/skills/greeter/notes.md", "# Notes\n");
    await api.putDocument(TENANT, PROJECT, "_vance/skills/bare/SKILL.md", noVersion);
    await api.putDocument(TENANT, PROJECT, "_vance/skills/broken/SKILL.md", "---\ntitle: [unclosed\n---\n");
    await api.listDocuments(TENANT, PROJECT, "_vance/");
    await api.effective(TENANT, PROJECT);
    await api.effectiveWithShadowed(TENANT, PROJECT);
    await api.effectiveSkill(TENANT, "greeter", PROJECT);
    await api.effectiveSkill(TENANT, "no-such-skill", PROJECT);
    await api.problems(TENANT, PROJECT);
    const spawned = await api.spawn(TENANT, `s-${randomUUID().slice(0, 8)}`, { recipe: "default", projectId: PROJECT, name: "main" });
    const processId = spawned.json.processId;
    await api.process(TENANT, processId);
    const steered = await api.steer(
      TENANT,
      processId,
      { command: "ACTIVATE", skillName: "greeter", args: "who=Bob", requestId: "r-1" },
      LANE_WAIT_SECONDS,
    );
    await api.requestStatus(TENANT, processId, "r-1");
    await api.steer(TENANT, processId, { command: "ACTIVATE", skillName: "no-such-skill" }, LANE_WAIT_SECONDS);
    await api.active(TENANT, processId);
    await api.composition(TENANT, processId, "hello there", { explain: "all" });
    const composed = await api.compose(TENANT, processId, { message: "hello" }, LANE_WAIT_SECONDS);
    await api.turn(TENANT, processId, composed.json.turnId);
    await api.complete(TENANT, processId, composed.json.turnId, { output: "Hi Bob" }, LANE_WAIT_SECONDS);
    await api.tool(TENANT, processId, "no_such_tool");

    // Assess
    expect(saved.status).toBe(200);
    expect(steered.status).toBe(200);
    expect(composed.status).toBe(200);
    expect(contractLedger.violations).toEqual([]);
    expect(contractLedger.checked.length).toBeGreaterThanOrEqual(20);
    expect(contractLedger.checked).toEqual(
      expect.arrayContaining([expect.stringMatching(/ → 404$/), expect.stringMatching(/\/turns → 200$/)]),
    );
  });

  it("pushes WebSocket frames in the contract's shapes", async () => {
    // Prepare
    const spawned = await api.spawn(TENANT, `s-${randomUUID().slice(0, 8)}`, { recipe: "default", projectId: PROJECT });
    const socket = await connectWebSocket(stack.wsUrl, token);

    // Act
    socket.send({ type: "skill-list", projectId: PROJECT, requestId: "list-1" });
    const list = await socket.nextJson();
    socket.send({ type: "process-subscribe", processId: spawned.json.processId, requestId: "sub-1" });
    const subscribed = await socket.nextJson();
    socket.send({ type: "process-skill", processId: spawned.json.processId, command: "ACTIVATE", skillName: "greeter", requestId: "ws-1" });
    const result = await socket.nextJson();
    socket.send({ type: "no-such-frame" });
    const refused = await socket.nextJson();
    await socket.close();

    // Assess
    const frames = [list, subscribed, result, refused].map((frame) => z.safeParse(contract.ServerFrame, frame));
    expect(frames.flatMap((parsed) => (parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`)))).toEqual(
      [],
    );
    expect(frames.map((parsed) => parsed.data?.type)).toEqual(["skill-list-result", "process-subscribed", "process-skill-result", "error"]);
  });
});
