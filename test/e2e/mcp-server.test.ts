import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, skillMd } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * API.md "MCP" over the local stack with clients written elsewhere: the SDK's own Client over
 * Streamable HTTP for every method, and the MCP Inspector's CLI for tools/list, prompts/list and
 * resources/read. The authorization matrix holds: another tenant and a non-member are refused
 * with HTTP 403, another user's `_user_` skills are never listed or readable.
 */

const TENANT = "acme";
const P1 = "p1";
const REVIEW = skillMd(
  [
    "name: review",
    "title: Code review",
    "description: Reviews code in one language.",
    "arguments:",
    "  - name: lang",
    "    required: true",
    "    enum: [ts, py, go, tsx]",
    "  - name: focus",
    "    type: string",
  ].join("\n"),
  "Review the change line by line.\n",
);
const GREET = skillMd(
  ["name: greet", "description: Greets someone.", "lifecycle: shot", "arguments: true"].join("\n"),
  "Say hello to $ARGUMENTS.\n",
);
const HIDDEN = skillMd(["name: hidden", "description: Only the model activates it.", "user-invocable: false"].join("\n"), "Hidden body.\n");
const SECRET = skillMd(["name: secret", "description: Bob's own skill."].join("\n"), "Bob only.\n");
const GUIDE = "# Guide\n\nStep one.\n";
const LOGO = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xde, 0xad, 0xbe, 0xef]);

let stack: LocalStack;
let alice: string;
let processId: string;
const clients: Client[] = [];

const mcpUrl = (query: string, tenant = TENANT): URL => new URL(`${stack.httpUrl}/brain/${tenant}/mcp?${query}`);

async function connect(token: string, query = `projectId=${P1}`, tenant = TENANT): Promise<Client> {
  const client = new Client({ name: "skills-e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(mcpUrl(query, tenant), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  clients.push(client);
  return client;
}

beforeAll(async () => {
  stack = await startLocalStack();
  alice = await stack.token({ tenant: TENANT, login: "alice", projects: [P1], roles: [`project-admin:${P1}`] });
  const api = new ApiClient(stack.httpUrl, alice);
  const bob = api.as(await stack.token({ tenant: TENANT, login: "bob", projects: [P1] }));
  const seeded = [
    await api.putDocument(TENANT, P1, "_vance/skills/review/SKILL.md", REVIEW),
    await api.putDocument(TENANT, P1, "_vance/skills/review/references/guide.md", GUIDE),
    await api.putDocument(TENANT, P1, "_vance/skills/review/assets/logo.png", LOGO, "image/png"),
    await api.putDocument(TENANT, P1, "_vance/skills/greet/SKILL.md", GREET),
    await api.putDocument(TENANT, P1, "_vance/skills/hidden/SKILL.md", HIDDEN),
    await bob.putDocument(TENANT, "_user_bob", "_vance/skills/secret/SKILL.md", SECRET),
  ];
  for (const response of seeded) expect(response.status, response.text).toBe(200);
  const spawned = await api.spawn(TENANT, "mcp-session", { recipe: "default", projectId: P1 });
  expect(spawned.status, spawned.text).toBe(201);
  processId = spawned.json.processId;
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await stack?.close();
});

describe("MCP server over the local stack (SDK client)", () => {
  it("introduces itself in initialize: name, version, instructions and capabilities", async () => {
    // Act
    const client = await connect(alice);

    // Assess
    expect(client.getServerVersion()).toMatchObject({ name: "skills-service", version: expect.any(String) });
    expect(client.getInstructions()).toContain("skill://{name}/{path}");
    expect(client.getServerCapabilities()).toMatchObject({ prompts: {}, resources: {}, tools: {}, completions: {} });
  });

  it("lists user-invocable skills as prompts with their arguments, never another user's", async () => {
    // Prepare
    const client = await connect(alice);

    // Act
    const { prompts } = await client.listPrompts();

    // Assess
    const names = prompts.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(["review", "greet"]));
    expect(names).not.toContain("hidden");
    expect(names).not.toContain("secret");
    expect(prompts.find((p) => p.name === "review")).toEqual({
      name: "review",
      title: "Code review",
      description: "Reviews code in one language.",
      arguments: [
        { name: "lang", required: true },
        { name: "focus", required: false },
      ],
    });
    expect(prompts.find((p) => p.name === "greet")?.arguments).toEqual([expect.objectContaining({ name: "text", required: false })]);
  });

  it("renders a prompt as the skill section, a shot skill as its turn prompt; a missing required argument is -32602", async () => {
    // Prepare
    const client = await connect(alice);

    // Act
    const review = await client.getPrompt({ name: "review", arguments: { lang: "ts", focus: "error handling please" } });
    const greet = await client.getPrompt({ name: "greet", arguments: { text: "the team" } });
    const missing = await client.getPrompt({ name: "review", arguments: {} }).catch((error: unknown) => error);
    const unknown = await client.getPrompt({ name: "nope" }).catch((error: unknown) => error);

    // Assess
    const text = (result: typeof review): string => (result.messages[0]?.content.type === "text" ? result.messages[0].content.text : "");
    expect(text(review)).toContain("--- Skill: review ---");
    expect(text(review)).toContain("Review the change line by line.");
    expect(text(greet)).toBe("Say hello to the team.");
    expect(missing).toMatchObject({ code: -32602, message: expect.stringContaining("Skill 'review' requires argument 'lang'") });
    expect(unknown).toMatchObject({ code: -32602 });
  });

  it("completes an argument from its enum by prefix, with total and hasMore", async () => {
    // Prepare
    const client = await connect(alice);

    // Act
    const ts = await client.complete({ ref: { type: "ref/prompt", name: "review" }, argument: { name: "lang", value: "t" } });
    const all = await client.complete({ ref: { type: "ref/prompt", name: "review" }, argument: { name: "lang", value: "" } });

    // Assess
    expect(ts.completion).toEqual({ values: ["ts", "tsx"], total: 2, hasMore: false });
    expect(all.completion.values).toEqual(["ts", "py", "go", "tsx"]);
  });

  it("lists every file of every visible skill as skill:// resources and reads text and binary ones", async () => {
    // Prepare
    const client = await connect(alice);

    // Act
    const { resources } = await client.listResources();
    const { resourceTemplates } = await client.listResourceTemplates();
    const guide = await client.readResource({ uri: "skill://review/references/guide.md" });
    const skill = await client.readResource({ uri: "skill://review/SKILL.md" });
    const logo = await client.readResource({ uri: "skill://review/assets/logo.png" });
    const other = await client.readResource({ uri: "skill://secret/SKILL.md" }).catch((error: unknown) => error);
    // As skill_read_file resolves it: the one listed file that matches ignoring case.
    const folded = await client.readResource({ uri: "skill://review/References/GUIDE.md" });

    // Assess
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual(
      expect.arrayContaining([
        "skill://review/SKILL.md",
        "skill://review/references/guide.md",
        "skill://review/assets/logo.png",
        "skill://hidden/SKILL.md",
      ]),
    );
    expect(uris.some((uri) => uri.startsWith("skill://secret/"))).toBe(false);
    expect(resources.find((r) => r.uri === "skill://review/references/guide.md")).toMatchObject({
      mimeType: "text/markdown",
      size: Buffer.byteLength(GUIDE),
    });
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: "skill://{name}/{+path}" })]);
    expect(guide.contents).toEqual([{ uri: "skill://review/references/guide.md", mimeType: "text/markdown", text: GUIDE }]);
    expect(skill.contents[0]).toMatchObject({ text: REVIEW });
    expect(logo.contents).toEqual([{ uri: "skill://review/assets/logo.png", mimeType: "image/png", blob: LOGO.toString("base64") }]);
    expect(other).toMatchObject({ code: -32002 });
    expect(folded.contents).toEqual([{ uri: "skill://review/References/GUIDE.md", mimeType: "text/markdown", text: GUIDE }]);
  });

  it("lists a process's tools and calls them through the tool invoker; errors are isError results with the API code", async () => {
    // Prepare
    const client = await connect(alice, `projectId=${P1}&processId=${processId}`);
    const projectOnly = await connect(alice);

    // Act
    const { tools } = await client.listTools();
    const activated = await client.callTool({ name: "skill_activate", arguments: { name: "review", args: "ts" } });
    const after = await client.listTools();
    const missing = await client.callTool({ name: "skill_nope__run", arguments: {} });
    const none = await projectOnly.listTools();

    // Assess
    expect(tools.map((t) => t.name)).toContain("skill_activate");
    expect(activated.isError ?? false).toBe(false);
    expect(after.tools.map((t) => t.name)).toContain("skill_read_file");
    expect(missing).toMatchObject({ isError: true, content: [{ type: "text", text: expect.stringMatching(/^TOOL_NOT_FOUND: /) }] });
    expect(none.tools).toEqual([]);
  });

  it("refuses another tenant, a non-member and a missing project over HTTP before any MCP message", async () => {
    // Prepare
    const outsider = await stack.token({ tenant: TENANT, login: "carol", projects: ["p2"] });
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    };
    const post = (url: URL, token: string) =>
      fetch(url, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: JSON.stringify(initialize),
      });

    // Act
    const otherTenant = await post(mcpUrl(`projectId=${P1}`, "globex"), alice);
    const nonMember = await post(mcpUrl(`projectId=${P1}`), outsider);
    const noProject = await post(mcpUrl(""), alice);
    const stream = await fetch(mcpUrl(`projectId=${P1}`), { headers: { Authorization: `Bearer ${alice}`, Accept: "text/event-stream" } });
    const sdkRefused = await connect(outsider).catch((error: unknown) => error);

    // Assess
    expect(otherTenant.status).toBe(403);
    expect(nonMember.status).toBe(403);
    expect(((await nonMember.json()) as { error: { code: string } }).error.code).toBe("FORBIDDEN");
    expect(noProject.status).toBe(400);
    expect(stream.status).toBe(405);
    expect(sdkRefused).toBeInstanceOf(Error);
  });
});

describe("MCP server over the local stack (MCP Inspector CLI)", () => {
  const inspect = async (...args: string[]): Promise<unknown> => {
    // The README's invocation, from the repository root: `npm run mcp:inspect` runs the CLI from
    // its own build folder, where the relative package.json it checks for exists.
    const { stdout } = await promisify(execFile)(
      "npm",
      [
        "run",
        "--silent",
        "mcp:inspect",
        "--",
        "--cli",
        mcpUrl(`projectId=${P1}&processId=${processId}`).toString(),
        "--transport",
        "http",
        "--header",
        `Authorization: Bearer ${alice}`,
        ...args,
      ],
      { timeout: 60_000, cwd: fileURLToPath(new URL("../..", import.meta.url)) },
    );
    return JSON.parse(stdout) as unknown;
  };

  it("answers tools/list, prompts/list and resources/read", async () => {
    // Act
    const tools = (await inspect("--method", "tools/list")) as { tools: { name: string }[] };
    const prompts = (await inspect("--method", "prompts/list")) as { prompts: { name: string }[] };
    const read = (await inspect("--method", "resources/read", "--uri", "skill://review/references/guide.md")) as {
      contents: { text: string }[];
    };

    // Assess
    expect(tools.tools.map((t) => t.name)).toContain("skill_activate");
    expect(prompts.prompts.map((p) => p.name)).toContain("review");
    expect(read.contents[0]?.text).toBe(GUIDE);
  });
});
