import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, skillMd } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * Issue 28 "Placeholder amplification" and "MCP batches have no total cap", issue 30 "Bodies
 * reach the model as written" and "Templates nobody renders", over the local stack: a plain
 * member's `_user_` skill whose body repeats `$0` thousands of times, driven with a 64 KB
 * argument through MCP prompts/get and through a turn preview, is refused (or left out with its
 * reason) while it is built; batches, a malformed Host and a non-string prompt argument are 4xx.
 */

const TENANT = "acme";
const P1 = "p1";
const ARGUMENT = "x".repeat(64 * 1024);
// Spaced, so every one of them is a placeholder under the new grammar as under the old one.
const amplifier = (count: number): string =>
  skillMd(["name: amp", "description: Repeats its argument."].join("\n"), `$ARGUMENTS\n${"$0 ".repeat(count)}\n`);
const XLSX = skillMd(
  ["name: xlsx", "description: Spreadsheets."].join("\n"),
  "| plan | price |\n| --- | --- |\n| Pro | $5.00 | $25.00 |\n\nTotal: =B5*(1+$B$6)\n",
);
const DEPLOY = skillMd(
  ["name: deploy", "description: Deploys.", "arguments:", "  - name: env", "    required: true"].join("\n"),
  "Deploy to {{ args.env }} carefully.\n",
);

let stack: LocalStack;
let member: string;
let api: ApiClient;

interface RpcAnswer {
  status: number;
  bytes: number;
  json: {
    error?: { code: number; message: string; data?: { code?: string } };
    result?: { messages?: { content: { text: string } }[] };
  } & Record<string, unknown>;
}

async function rpc(body: unknown, headers: Record<string, string> = {}): Promise<RpcAnswer> {
  const response = await fetch(`${stack.httpUrl}/brain/${TENANT}/mcp?projectId=${P1}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${member}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "Mcp-Protocol-Version": "2025-06-18",
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, bytes: Buffer.byteLength(text), json: JSON.parse(text) as RpcAnswer["json"] };
}

const getPrompt = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "prompts/get",
  params: { name, arguments: args },
});

beforeAll(async () => {
  stack = await startLocalStack();
  member = await stack.token({ tenant: TENANT, login: "mallory", projects: [P1] });
  api = new ApiClient(stack.httpUrl, member);
  for (const [name, text] of [
    ["amp", amplifier(7_000)],
    ["xlsx", XLSX],
    ["deploy", DEPLOY],
  ] as const) {
    const saved = await api.putDocument(TENANT, "_user_mallory", `_vance/skills/${name}/SKILL.md`, text);
    expect(saved.status, saved.text).toBe(200);
  }
});

afterAll(async () => {
  await stack?.close();
});

describe("placeholder amplification is refused while it is built", () => {
  it("answers prompts/get of 7 000 × $0 with a 64 KB argument as -32602 PAYLOAD_TOO_LARGE naming the skill", async () => {
    // Act
    const answer = await rpc(getPrompt(1, "amp", { text: ARGUMENT }));

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.json.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining("Skill 'amp'"),
      data: { code: "PAYLOAD_TOO_LARGE" },
    });
    expect(answer.bytes).toBeLessThan(4096);
  });

  it("refuses a JSON-RPC batch before any message runs", async () => {
    // Act
    const answer = await rpc(Array.from({ length: 12 }, (_, i) => getPrompt(i + 1, "amp", { text: ARGUMENT })));

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: -32600, message: expect.stringContaining("batches are not supported") });
  });

  it("leaves the skill out of a turn preview with its reason, and the preview answers", async () => {
    // Prepare
    const spawned = await api.spawn(TENANT, "amp-session", { recipe: "default", projectId: P1 });
    expect(spawned.status, spawned.text).toBe(201);
    const processId = spawned.json.processId as string;
    // Just under the steering route's 64 KiB body.
    const activated = await api.steer(TENANT, processId, { command: "ACTIVATE", skillName: "amp", args: ARGUMENT.slice(0, 60_000) }, 10);
    expect(activated.status, activated.text).toBe(200);

    // Act
    const preview = await api.composition(TENANT, processId, "hello");

    // Assess
    expect(preview.status, preview.text.slice(0, 500)).toBe(200);
    expect((preview.json as { warnings?: string[] }).warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Skill 'amp' left out: .*more than 262144 bytes/)]),
    );
    expect(Buffer.byteLength(preview.text)).toBeLessThan(300 * 1024);
  });
});

describe("MCP answers malformed input with 4xx", () => {
  it("answers a prompt argument that is not a string with -32602 naming it, not -32603", async () => {
    // Act
    const answer = await rpc(getPrompt(1, "amp", { text: 5 }));

    // Assess
    expect(answer.json.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Invalid prompts\/get request: params\.arguments\.text: expected string, received number/),
    });
  });

  it("answers an unparsable Host header with a 4xx, never a 500 (the local stack refuses a Host it does not own: 403)", async () => {
    // Act
    const url = new URL(`${stack.httpUrl}/brain/${TENANT}/mcp?projectId=${P1}`);
    const status = await new Promise<number>((resolve, reject) => {
      const outgoing = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          method: "POST",
          setHost: false,
          headers: {
            Host: "bad host[",
            Authorization: `Bearer ${member}`,
            "Content-Type": "application/json",
            Accept: "application/json, text/event-stream",
          },
        },
        (incoming) => {
          incoming.resume();
          incoming.on("end", () => resolve(incoming.statusCode ?? 0));
        },
      );
      outgoing.on("error", reject);
      outgoing.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
    });

    // Assess
    expect(status).toBe(403);
  });
});

describe("bodies reach the model as written, templates of this service's fields render", () => {
  it("keeps a pricing table and a formula intact through prompts/get", async () => {
    // Act
    const answer = await rpc(getPrompt(1, "xlsx", {}));

    // Assess
    expect(answer.json.result?.messages?.[0]?.content.text).toContain("| Pro | $5.00 | $25.00 |\n\nTotal: =B5*(1+$B$6)");
  });

  it("keeps the user's text when /skill xlsx is given arguments: the skill does not consume them", async () => {
    // Prepare
    const spawned = await api.spawn(TENANT, "xlsx-session", { recipe: "default", projectId: P1 });
    const processId = spawned.json.processId as string;

    // Act
    const activated = await api.steer(
      TENANT,
      processId,
      { command: "ACTIVATE", skillName: "xlsx", args: "convert sales.csv to a pivot table" },
      10,
    );
    const turn = await api.compose(TENANT, processId, {}, 10);

    // Assess
    expect(activated.status, activated.text).toBe(200);
    expect(activated.json.result?.turnScheduled).toBe(true);
    expect(JSON.stringify(turn.json.result?.messages)).toContain("convert sales.csv to a pivot table");
  });

  it("renders an Agent Skills form body that declares arguments: through prompts/get", async () => {
    // Act
    const answer = await rpc(getPrompt(1, "deploy", { env: "staging" }));

    // Assess
    expect(answer.json.result?.messages?.[0]?.content.text).toContain("Deploy to staging carefully.");
  });
});
