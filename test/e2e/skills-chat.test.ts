import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SkillsClient } from "skills-service/client";
import { skillMd } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";
import { TmuxTerminal } from "./support/tmux.js";

/**
 * `skills chat` in a real terminal (tmux) against the local stack: spawn, `/skill` with tab
 * completion of names (a trailing space after a whole one) and argument values, a mistyped name
 * answered with "did you mean", a skill pushed after the chat started completed without
 * `/skill list`, list, clear (and a clear of an inactive skill that says so), a turn, a scheduled
 * turn showing up, a FOOT script run in the chat's working directory, Ctrl-C and a clean exit on Ctrl-D.
 */

const TENANT = "acme";
const PROJECT = "chat";
const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

let stack: LocalStack;
let client: SkillsClient;
let token: string;
let base: string;
let terminal: TmuxTerminal;

const FORMS = skillMd(
  "title: Forms\ndescription: Fills in forms\nversion: 1.0.0\narguments:\n  - { name: strict, type: boolean }",
  "Fill in forms. Strict: {{ args.strict }}.",
);
const ANNOUNCE = skillMd("title: Announce\ndescription: Announces itself\nversion: 1.0.0\naction: Announce the plan.");
const LOCAL = skillMd(
  "title: Local files\ndescription: Works on the user's machine\nversion: 1.0.0\nscripts:\n  - name: note\n    target: FOOT\n    file: scripts/note.js\n    params:\n      - { name: text, type: string, required: true }",
);
const NOTE = "vance.fs.write('notes/today.md', args.text); ({ written: vance.fs.read('notes/today.md') })";

beforeAll(async () => {
  stack = await startLocalStack();
  token = await stack.token({ tenant: TENANT, login: "carol", projects: [PROJECT], roles: [`project-admin:${PROJECT}`] });
  client = new SkillsClient({ baseUrl: stack.httpUrl, webSocketUrl: stack.wsUrl, tenant: TENANT, token });
  for (const [path, body] of [
    ["_vance/skills/forms/SKILL.md", FORMS],
    ["_vance/skills/announce/SKILL.md", ANNOUNCE],
    ["_vance/skills/local-files/SKILL.md", LOCAL],
    ["_vance/skills/local-files/scripts/note.js", NOTE],
  ] as const) {
    await client.documents.put(PROJECT, path, body);
  }
  base = mkdtempSync(join(tmpdir(), "skills-chat-e2e-"));
});

afterAll(async () => {
  await terminal?.kill();
  await stack?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

describe("skills chat in a terminal", () => {
  it("steers, completes, runs turns and FOOT scripts, shows scheduled turns, and exits cleanly", async () => {
    // Prepare
    const workDir = join(base, "work");
    const command = `cd ${repoRoot} && node bin/skills.mjs chat --project ${PROJECT} --name main --workdir ${workDir}; echo "chat exited: $?"; sleep 600`;
    terminal = await TmuxTerminal.start(`skills-chat-${process.pid}`, command, {
      SKILLS_URL: stack.httpUrl,
      SKILLS_TOKEN: token,
      SKILLS_LLM_URL: "",
      POWERTOOLS_LOG_LEVEL: "ERROR",
    });
    const banner = await terminal.waitFor(/main>$/m, { timeoutMs: 30_000 });
    const processId = /process main \(([^)]+)\)/.exec(banner)?.[1] ?? "";

    // Act: completion of a skill name, then (no space typed: the completion added it) of a declared boolean argument's values
    await terminal.type("/skill fo", "Tab");
    const completedName = await terminal.waitFor(/main> \/skill forms$/m);
    await terminal.keys("Tab", "Tab");
    const candidates = await terminal.waitFor(/--once\s+true\s+false/);
    await terminal.type("tr", "Tab");
    await terminal.waitFor(/\/skill forms\s+true$/m);
    await terminal.keys("Enter");
    const activated = await terminal.waitFor(/\[forms\(explicit\)\] main>$/m);

    // Act: list, a scheduled turn, a turn
    await terminal.type("/skill list", "Enter");
    const listed = await terminal.waitFor(/forms\s+PROJECT\s+\* active \(explicit\)/);
    await terminal.type("/skill announce", "Enter");
    const scheduled = await terminal.waitFor(/» turn scheduled \(action\): 1 pending message\(s\)/);
    await terminal.type("hello there", "Enter");
    const turned = await terminal.waitFor(/turn completed; active: forms/);

    // Act: a FOOT script the service routes to the chat's connection
    await terminal.type("/skill local-files", "Enter");
    await terminal.waitFor(/local-files\(explicit\)\] main>$/m);
    const note = await client.tools.call<{ written: string }>(processId, "skill_local-files__note", { text: "from the e2e test" });
    const footRan = await terminal.waitFor("» FOOT script local-files/note done");

    // Act: a typo, then a skill pushed while the chat runs, completed without /skill list
    await terminal.type("/skill frms", "Enter");
    const typo = await terminal.waitFor(/error: no skill frms .*/);
    await client.documents.put(
      PROJECT,
      "_vance/skills/late-arrival/SKILL.md",
      skillMd("title: Late arrival\ndescription: Pushed after the chat started\nversion: 1.0.0"),
    );
    await terminal.type("/skill late", "Tab");
    const lateCompleted = await terminal.waitFor(/main> \/skill late-arrival$/m);
    await terminal.keys("Enter");
    await terminal.waitFor("activated late-arrival");

    // Act: clear an inactive skill, clear one, clear all, Ctrl-C, Ctrl-D
    await terminal.type("/skill clear nonexistent", "Enter");
    const notActive = await terminal.waitFor("nonexistent is not active");
    await terminal.type("/skill clear forms", "Enter");
    const clearedOne = await terminal.waitFor("cleared forms");
    await terminal.type("/skill clear", "Enter");
    const clearedAll = await terminal.waitFor(/cleared every skill not held by a locked recipe\s*\n\s*main>$/m);
    await terminal.keys("C-c");
    const interrupted = await terminal.waitFor("(Ctrl-C again or Ctrl-D to leave)");
    await terminal.keys("C-d");
    const exited = await terminal.waitFor("chat exited: 0");
    const after = await client.processes.get(processId);

    // Assess
    expect(processId).not.toBe("");
    expect(banner).toContain(`FOOT scripts run locally in ${workDir}`);
    expect(banner).toContain("no model configured");
    expect(completedName).toContain("/skill forms");
    expect(candidates).toMatch(/--once\s+true\s+false/);
    expect(activated).toContain("activated forms");
    expect(listed).toMatch(/announce\s+PROJECT/);
    expect(scheduled).toContain("[_skill] Announce the plan.");
    expect(turned).toMatch(/turn \S+: 2 message\(s\)/);
    expect(turned).toContain("── skill section ──");
    expect(turned).toContain("Fill in forms. Strict: true.");
    expect(turned).toMatch(/tools: .*skill_activate/);
    expect(turned).toMatch(/catalog: \d+ entr(y|ies)/);
    expect(note).toEqual({ written: "from the e2e test" });
    expect(readFileSync(join(workDir, "notes/today.md"), "utf8")).toBe("from the e2e test");
    expect(footRan).toContain(`» FOOT script local-files/note runs in ${workDir}`);
    expect(typo).toContain("error: no skill frms in project chat; did you mean forms?");
    expect(lateCompleted).toContain("/skill late-arrival");
    expect(notActive).toContain("nonexistent is not active, nothing cleared; active: forms, announce, local-files, late-arrival");
    expect(notActive).not.toContain("cleared nonexistent");
    expect(clearedOne).toContain("cleared forms");
    expect(clearedAll).toContain("cleared every skill");
    expect(interrupted).toContain("(Ctrl-C again or Ctrl-D to leave)");
    expect(exited).toContain(`bye (process ${processId} stays`);
    expect(after.activeSkills).toEqual([]);
    expect(existsSync(workDir)).toBe(true);
  });

  it("with SKILLS_LLM_URL runs the loop: compose, the model's tool call, its answer, complete", async () => {
    // Prepare: an OpenAI-compatible endpoint that first calls skill_activate, then answers
    const requests: { tools?: { function: { name: string } }[]; messages: { role: string }[] }[] = [];
    const model = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        requests.push(JSON.parse(body) as (typeof requests)[number]);
        const message =
          requests.length === 1
            ? {
                role: "assistant",
                content: null,
                tool_calls: [{ id: "c1", type: "function", function: { name: "skill_activate", arguments: '{"name":"announce"}' } }],
              }
            : { role: "assistant", content: "All done, the plan is announced." };
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ choices: [{ message }] }));
      });
    });
    await new Promise<void>((resolve) => model.listen(0, "127.0.0.1", resolve));
    const modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
    const loop = await TmuxTerminal.start(
      `skills-chat-llm-${process.pid}`,
      `cd ${repoRoot} && node bin/skills.mjs chat --project ${PROJECT} --session llm --show tools; echo "chat exited: $?"; sleep 600`,
      {
        SKILLS_URL: stack.httpUrl,
        SKILLS_TOKEN: token,
        SKILLS_LLM_URL: modelUrl,
        SKILLS_LLM_MODEL: "fake-model",
        POWERTOOLS_LOG_LEVEL: "ERROR",
      },
    );
    try {
      await loop.waitFor(/>$/m, { timeoutMs: 30_000 });

      // Act
      await loop.type("make a plan", "Enter");
      const answered = await loop.waitFor(/turn completed; active: announce/);
      await loop.keys("C-d");
      const exited = await loop.waitFor("chat exited: 0");

      // Assess
      expect(answered).toContain("model: fake-model");
      expect(answered).toContain('→ tool skill_activate {"name":"announce"}');
      expect(answered).toContain("All done, the plan is announced.");
      expect(answered).toMatch(/\[announce\(model\)\] \S+>/);
      expect(requests[0]?.tools?.map((t) => t.function.name)).toContain("skill_activate");
      expect(requests[1]?.messages.at(-1)).toMatchObject({ role: "tool" });
      expect(exited).toContain("bye");
    } finally {
      await loop.kill();
      model.close();
    }
  });

  it("prints its usage with --help", async () => {
    // Prepare
    const help = await TmuxTerminal.start(
      `skills-chat-help-${process.pid}`,
      `cd ${repoRoot} && node bin/skills.mjs chat --help; echo "help exited: $?"; sleep 600`,
      {},
    );

    // Act
    const screen = await help.waitFor("help exited: 0", { timeoutMs: 30_000 }).finally(() => help.kill());

    // Assess
    expect(screen).toContain("usage: skills chat --project <id> [--name <processName> | --process <processId>] [--recipe <name>]");
  });
});
