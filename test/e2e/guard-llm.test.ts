import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";
import { connectWebSocket } from "./support/ws-client.js";
import type { WsTestClient } from "./support/ws-client.js";

/**
 * Completion guards (spec §2a, the bundled code-guard) in the real lane worker, against a local
 * HTTP server that speaks the OpenAI chat-completions protocol in place of a model.
 */

const TENANT = "acme";
const PROJECT = "work";

interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: unknown;
}

const llm = {
  requests: [] as ChatRequest[],
  /** What the fake model answers: a JSON verdict, or an HTTP failure. */
  answer: { fire: true } as unknown,
  status: 200,
};

let server: Server;
let stack: LocalStack;
let token: string;
const savedEnv: Record<string, string | undefined> = {};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- replies of several shapes
type Reply = { status: number; json: any };

async function http(method: string, path: string, body?: unknown): Promise<Reply> {
  const response = await fetch(`${stack.httpUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", prefer: "wait=15" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === "" ? undefined : JSON.parse(text) };
}

/** A process with the bundled code-guard active, one turn composed and completed. */
async function completeGuardedTurn(ws?: WsTestClient): Promise<{ processId: string; completed: Reply }> {
  const spawned = await http("POST", `/brain/${TENANT}/sessions/s-${randomUUID().slice(0, 8)}/processes`, {
    recipe: "default",
    projectId: PROJECT,
  });
  const processId = spawned.json.processId as string;
  if (ws) {
    ws.send({ type: "process-subscribe", processId, requestId: "sub" });
    expect(await ws.nextJson()).toMatchObject({ type: "process-subscribed", processId });
  }
  const activated = await http("POST", `/brain/${TENANT}/processes/${processId}/skill`, { command: "ACTIVATE", skillName: "code-guard" });
  expect(activated.status, JSON.stringify(activated.json)).toBe(200);
  const composed = await http("POST", `/brain/${TENANT}/processes/${processId}/turns`, { message: "Add a login form" });
  expect(composed.status, JSON.stringify(composed.json)).toBe(200);
  const completed = await http("POST", `/brain/${TENANT}/processes/${processId}/turns/${composed.json.result.turnId}/complete`, {
    output: "Implemented the login form.",
  });
  return { processId, completed };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      llm.requests.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatRequest);
      res.writeHead(llm.status, { "content-type": "application/json" });
      res.end(
        JSON.stringify(
          llm.status === 200 ? { choices: [{ message: { role: "assistant", content: JSON.stringify(llm.answer) } }] } : { error: "down" },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // Handlers read the LLM endpoint at module scope, when the stack loads them.
  for (const name of ["SKILLS_LLM_URL", "SKILLS_LLM_MODEL", "SKILLS_LLM_TIMEOUT_MS"]) savedEnv[name] = process.env[name];
  process.env.SKILLS_LLM_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  process.env.SKILLS_LLM_MODEL = "fake-judge";
  process.env.SKILLS_LLM_TIMEOUT_MS = "3000";
  stack = await startLocalStack();
  token = await stack.token({ tenant: TENANT, login: "alice", projects: [PROJECT] });
});

afterAll(async () => {
  await stack?.close();
  await new Promise((resolve) => server?.close(resolve));
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("the bundled code-guard in the lane worker", () => {
  it("asks the model with the turn's output and, when it fires, queues the _guard follow-up and announces the turn", async () => {
    // Prepare
    llm.requests.length = 0;
    llm.status = 200;
    llm.answer = { fire: true };
    const ws = await connectWebSocket(stack.wsUrl, token);

    try {
      // Act
      const { processId, completed } = await completeGuardedTurn(ws);

      // Assess
      expect(completed.status, JSON.stringify(completed.json)).toBe(200);
      expect(completed.json.result).toMatchObject({ turnScheduled: true });
      const process = await http("GET", `/brain/${TENANT}/processes/${processId}`);
      expect(process.json.guard).toMatchObject({ type: "inline" });
      expect(process.json.pending).toEqual([
        expect.objectContaining({ sender: "_guard", text: "Was the build run and the specification updated?" }),
      ]);
      expect(llm.requests).toHaveLength(1);
      expect(llm.requests[0]?.model).toBe("fake-judge");
      expect(JSON.parse(llm.requests[0]!.messages.at(-1)!.content)).toMatchObject({
        judge: "Has a development task of the user been completed?",
        output: "Implemented the login form.",
      });
      let scheduled: Record<string, unknown> | undefined;
      for (let i = 0; i < 10 && scheduled === undefined; i++) {
        const frame = await ws.nextJson<Record<string, unknown>>(10_000);
        if (frame.type === "process-turn-scheduled") scheduled = frame;
      }
      expect(scheduled).toMatchObject({ processId, reason: "guard", pending: [expect.objectContaining({ sender: "_guard" })] });
    } finally {
      await ws.close();
    }
  });

  it("fails open when the model endpoint fails: the turn completes and nothing is queued", async () => {
    // Prepare
    llm.requests.length = 0;
    llm.status = 500;

    // Act
    const { processId, completed } = await completeGuardedTurn();

    // Assess
    expect(completed.status, JSON.stringify(completed.json)).toBe(200);
    expect(completed.json.result).toMatchObject({ turnScheduled: false, status: "ACTIVE" });
    expect(llm.requests).toHaveLength(1);
    const process = await http("GET", `/brain/${TENANT}/processes/${processId}`);
    expect(process.json.pending).toEqual([]);
  });
});
