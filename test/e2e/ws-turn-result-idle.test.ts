import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SkillsClient } from "../../client/index.js";
import { IDLE_CLOSE_REASON } from "../../infra/local/websocket-gateway.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";
import { connectWebSocket } from "./support/ws-client.js";

/**
 * The walkthrough's watcher (README, issue 30) over the local stack: a composed turn reaches it as
 * `process-turn-result`, and an idle socket is closed with a reason that says how to keep it.
 */

const TENANT = "acme";
const PROJECT = "p1";
let stack: LocalStack;
let token: string;

beforeAll(async () => {
  stack = await startLocalStack({ webSocketIdleTimeoutMs: 4_000 });
  token = await stack.token({ tenant: TENANT, login: "ada", projects: [PROJECT], roles: [`project-admin:${PROJECT}`] });
});

afterAll(async () => {
  await stack?.close();
});

describe("WebSocket watcher", () => {
  it("receives a composed turn as process-turn-result {processId, requestId, turnId, result}", async () => {
    // Prepare
    const client = new SkillsClient({ baseUrl: stack.httpUrl, tenant: TENANT, token });
    const { processId } = await client.processes.spawn("s1", { recipe: "default", projectId: PROJECT });
    const ws = await connectWebSocket(stack.wsUrl, token);
    ws.send({ type: "process-subscribe", processId });
    expect(await ws.nextJson<{ type: string }>()).toMatchObject({ type: "process-subscribed" });

    // Act
    const turn = await client.turns.compose(processId, { message: "Keep it short." });
    const frame = await ws.nextJson<Record<string, unknown>>(10_000);
    await ws.close();

    // Assess
    expect(frame).toMatchObject({
      type: "process-turn-result",
      processId,
      turnId: turn.turnId,
      status: "DONE",
      result: expect.objectContaining({ turnId: turn.turnId }),
    });
    expect(typeof frame.requestId).toBe("string");
  });

  it("closes an idle socket with 1001 and a reason that says how to keep it open", async () => {
    // Prepare
    const ws = await connectWebSocket(stack.wsUrl, token);

    // Act
    const closed = await ws.closed;

    // Assess
    expect(closed).toEqual({ code: 1001, reason: IDLE_CLOSE_REASON });
    expect(closed.reason).toContain("send any frame");
  });
});
