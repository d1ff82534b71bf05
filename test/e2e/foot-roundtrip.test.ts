import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FootClient } from "../../shared/foot/foot-client.js";
import { FOOT_NOT_AVAILABLE } from "../../shared/scripts/skill-script-runner.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * FOOT routing (spec §13.5) against the local stack: the real tools function pushes the script
 * over the WebSocket API to the reference Foot client, which runs it in its own sandbox on a
 * temporary working directory; the real `$default` function stores the answer in DynamoDB
 * (dynalite), where the tools function picks it up.
 */

const TENANT = "acme";
const PROJECT = "work";

const SKILL = [
  "---",
  "title: Local files",
  "description: Works on the user's machine",
  "version: 1.0.0",
  "scripts:",
  "  - name: note",
  "    target: FOOT",
  "    file: scripts/note.js",
  "    params:",
  "      - { name: text, type: string, required: true }",
  "  - name: escape",
  "    target: FOOT",
  "    file: scripts/escape.js",
  "---",
  "",
].join("\n");

const NOTE = [
  "vance.log('info', 'writing ' + args.text.length + ' characters');",
  "vance.fs.write('notes/today.md', args.text);",
  "({ back: vance.fs.read('notes/today.md'), files: vance.fs.list('notes').map((e) => e.path), existing: vance.fs.read('existing.txt') })",
].join("\n");

const ESCAPE = "vance.fs.read('../secret.txt')";

let stack: LocalStack;
let token: string;
let base: string;
let workDir: string;

async function http(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- replies of several shapes
): Promise<{ status: number; json: any }> {
  const response = await fetch(`${stack.httpUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(typeof body === "string" ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === "" ? undefined : JSON.parse(text) };
}

async function activeProcess(): Promise<string> {
  const spawned = await http("POST", `/brain/${TENANT}/sessions/s-${randomUUID().slice(0, 8)}/processes`, {
    recipe: "default",
    projectId: PROJECT,
  });
  expect(spawned.status).toBe(201);
  const processId = spawned.json.processId as string;
  const activated = await http(
    "POST",
    `/brain/${TENANT}/processes/${processId}/skill`,
    { command: "ACTIVATE", skillName: "local-files" },
    { prefer: "wait=15" },
  );
  expect(activated.status, JSON.stringify(activated.json)).toBe(200);
  return processId;
}

const tool = (processId: string, name: string, args: Record<string, unknown>) =>
  http("POST", `/brain/${TENANT}/processes/${processId}/tools/${name}`, { args });

beforeAll(async () => {
  stack = await startLocalStack();
  token = await stack.token({ tenant: TENANT, login: "alice", projects: [PROJECT], roles: [`project-admin:${PROJECT}`] });
  for (const [path, body] of [
    ["_vance/skills/local-files/SKILL.md", SKILL],
    ["_vance/skills/local-files/scripts/note.js", NOTE],
    ["_vance/skills/local-files/scripts/escape.js", ESCAPE],
  ] as const) {
    const saved = await http("PUT", `/brain/${TENANT}/projects/${PROJECT}/documents/${path}`, body);
    expect(saved.status, JSON.stringify(saved.json)).toBe(200);
  }
  base = mkdtempSync(join(tmpdir(), "foot-e2e-"));
  workDir = join(base, "work");
  mkdirSync(workDir);
  writeFileSync(join(workDir, "existing.txt"), "was here before");
  writeFileSync(join(base, "secret.txt"), "outside the working directory");
});

afterAll(async () => {
  await stack?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

describe("FOOT scripts over a real WebSocket", () => {
  it("answer 'ERROR: foot routing not available' while no client is subscribed", async () => {
    // Prepare
    const processId = await activeProcess();

    // Act
    const reply = await tool(processId, "skill_local-files__note", { text: "hello" });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ result: FOOT_NOT_AVAILABLE, logs: [] });
  });

  it("round-trip through the subscribed reference client, which runs them on its working directory", async () => {
    // Prepare
    const processId = await activeProcess();
    const client = await FootClient.connect({ url: stack.wsUrl, token, workDir });
    try {
      await client.subscribe(processId);

      // Act
      const reply = await tool(processId, "skill_local-files__note", { text: "# Today\nShip it." });

      // Assess
      expect(reply.status, JSON.stringify(reply.json)).toBe(200);
      expect(reply.json).toEqual({
        result: { back: "# Today\nShip it.", files: ["notes/today.md"], existing: "was here before" },
        logs: [{ level: "info", message: "writing 16 characters" }],
      });
      expect(readFileSync(join(workDir, "notes", "today.md"), "utf8")).toBe("# Today\nShip it.");
      expect(client.executed).toBe(1);
    } finally {
      await client.close();
    }
  });

  it("report the client's sandbox refusal as a typed error, and nothing outside the working directory is read", async () => {
    // Prepare
    const processId = await activeProcess();
    const client = await FootClient.connect({ url: stack.wsUrl, token, workDir });
    try {
      await client.subscribe(processId);

      // Act
      const reply = await tool(processId, "skill_local-files__escape", {});

      // Assess
      expect(reply.status).toBe(400);
      expect(reply.json.error.code).toBe("INVALID_REQUEST");
      expect(reply.json.error.message).toContain("FOOT script failed on the client");
      expect(reply.json.error.message).toContain("must not contain '.', '..' or empty segments");
      expect(JSON.stringify(reply.json)).not.toContain("outside the working directory");
      expect(existsSync(join(workDir, "secret.txt"))).toBe(false);
    } finally {
      await client.close();
    }
  });

  it("go back to 'not available' once the client has disconnected", async () => {
    // Prepare
    const processId = await activeProcess();
    const client = await FootClient.connect({ url: stack.wsUrl, token, workDir });
    await client.subscribe(processId);
    await client.close();

    // Act
    const reply = await tool(processId, "skill_local-files__note", { text: "later" });

    // Assess
    expect(reply.json).toEqual({ result: FOOT_NOT_AVAILABLE, logs: [] });
  });
});
