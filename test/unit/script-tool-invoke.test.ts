import { afterAll, describe, expect, it } from "vitest";
import { DocumentNotFound, InvalidRequest, ToolNotFound } from "../../shared/errors.js";
import type { FootPort, FootScriptRequest } from "../../shared/scripts/foot-port.js";
import type { Process } from "../../shared/processes/process.js";
import { SandboxPool } from "../../shared/sandbox/sandbox-pool.js";
import { ScriptDepthExceeded, ScriptError } from "../../shared/sandbox/script-errors.js";
import { WORKSPACE_PREFIX } from "../../shared/scripts/script-workspace.js";
import { FOOT_NOT_AVAILABLE, SkillScriptRunner } from "../../shared/scripts/skill-script-runner.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";
import { SERVICE_TOOLS } from "../../shared/tools/service-tools.js";
import { ToolInvoker } from "../../shared/tools/tool-invoker.js";
import { ALICE, EmptyLayer, PROJECT, steeringHarness, TENANT } from "../support/steering-harness.js";

const pool = new SandboxPool({ size: 2 });
afterAll(() => pool.close());

interface ScriptDecl {
  source: string;
  target?: "BRAIN" | "FOOT";
  params?: string;
}

/** A steering harness plus a ToolInvoker whose scripts run on this file's pool; skill `kit` carries the scripts. */
async function scriptHarness(options: { foot?: FootPort; maxDepth?: number } = {}) {
  const h = await steeringHarness();
  const sources = { store: h.documents, bundled: new EmptyLayer() };
  const invoker = new ToolInvoker({
    sources,
    preview: (process, user) => h.app.turns.preview(process, undefined, undefined, user),
    tools: SERVICE_TOOLS,
    scripts: new SkillScriptRunner({
      loader: new SkillLoader(sources),
      documents: h.documents,
      pool,
      limits: { timeoutMs: 3_000 },
      ...(options.foot ? { foot: options.foot } : {}),
      ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
    }),
  });
  const putKit = async (scripts: Record<string, ScriptDecl>, extra = "", project = "_tenant", skill = "kit"): Promise<void> => {
    const entries = Object.entries(scripts).flatMap(([name, decl]) => [
      `  - name: ${name}`,
      `    file: scripts/${name}.js`,
      ...(decl.target ? [`    target: ${decl.target}`] : []),
      ...(decl.params ? [decl.params] : []),
    ]);
    await h.putSkill(skill, { extra: [`scripts:`, ...entries, extra].join("\n") }, project);
    for (const [name, decl] of Object.entries(scripts)) await h.putFile(`_vance/skills/${skill}/scripts/${name}.js`, decl.source, project);
  };
  const activeProcess = async (skill = "kit"): Promise<Process> => {
    const p = await h.spawn("open");
    await h.activate(p.processId, skill);
    return h.process(p.processId);
  };
  const call = (process: Process, tool: string, args: unknown = {}) => invoker.invoke(process, ALICE, tool, args);
  return { h, invoker, putKit, activeProcess, call };
}

const failureOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
};

describe("script tools: invocation", () => {
  it("runs a BRAIN script with its args; the result is the last expression, the trace its vance.log entries", async () => {
    // Prepare
    const t = await scriptHarness();
    await t.putKit({
      greet: { source: "vance.log('info', 'greeting ' + args.name); vance.log('warn', 'second'); ({ text: 'Hello, ' + args.name })" },
    });
    const process = await t.activeProcess();

    // Act
    const outcome = await t.call(process, "skill_kit__greet", { name: "Ada" });

    // Assess
    expect(outcome).toEqual({
      result: { text: "Hello, Ada" },
      logs: [
        { level: "info", message: "greeting Ada" },
        { level: "warn", message: "second" },
      ],
    });
  });

  it("is TOOL_NOT_FOUND while the skill is not active, and after it was cleared", async () => {
    // Prepare
    const t = await scriptHarness();
    await t.putKit({ greet: { source: "1" } });
    const idle = await t.h.spawn("open");
    const active = await t.activeProcess();
    await t.h.clear(active.processId, "kit");
    const cleared = await t.h.process(active.processId);

    // Act
    const notActive = await failureOf(t.call(idle, "skill_kit__greet"));
    const afterClear = await failureOf(t.call(cleared, "skill_kit__greet"));
    const unknownScript = await failureOf(t.call(await t.activeProcess(), "skill_kit__nope"));

    // Assess
    expect(notActive).toBeInstanceOf(ToolNotFound);
    expect(afterClear).toBeInstanceOf(ToolNotFound);
    expect(unknownScript).toBeInstanceOf(ToolNotFound);
  });

  it("checks args against the declared params before running anything", async () => {
    // Prepare
    const t = await scriptHarness();
    const params = ["    params:", "      - name: name", "        type: string", "        required: true"].join("\n");
    await t.putKit({ greet: { source: "vance.workspace.write('ran.txt', 'yes'); 1", params } });
    const process = await t.activeProcess();

    // Act
    const missing = await failureOf(t.call(process, "skill_kit__greet", { other: 1 }));
    const wrongType = await failureOf(t.call(process, "skill_kit__greet", { name: 42 }));
    const notObject = await failureOf(t.call(process, "skill_kit__greet", [1, 2]));

    // Assess
    expect(missing).toBeInstanceOf(InvalidRequest);
    expect((wrongType as Error).message).toContain("'name' must be a string");
    expect(notObject).toBeInstanceOf(InvalidRequest);
    expect(await t.h.documents.get(TENANT, PROJECT, `${WORKSPACE_PREFIX}ran.txt`)).toBeUndefined();
  });

  it("reads the script from the layer of its skill, never from another layer", async () => {
    // Prepare: the project overrides the skill; only the tenant layer has the script file.
    const t = await scriptHarness();
    await t.putKit({ greet: { source: "'from tenant'" } });
    await t.h.putSkill("kit", { extra: "scripts:\n  - name: greet\n    file: scripts/greet.js" }, PROJECT);
    const process = await t.activeProcess();

    // Act
    const error = await failureOf(t.call(process, "skill_kit__greet"));

    // Assess
    expect(error).toBeInstanceOf(DocumentNotFound);
  });
});

describe("script tools: host bindings", () => {
  it("vance.workspace reads, writes, lists and deletes below _workspace/ of the process's project", async () => {
    // Prepare
    const t = await scriptHarness();
    const source = [
      "const before = vance.workspace.read('reports/diff.md');",
      "const written = vance.workspace.write('reports/diff.md', 'line 1\\nline 2');",
      "vance.workspace.write('notes.txt', 'n');",
      "const listed = vance.workspace.list();",
      "const reports = vance.workspace.list('reports');",
      "const text = vance.workspace.read('reports/diff.md');",
      "const removed = vance.workspace.delete('notes.txt');",
      "const removedAgain = vance.workspace.delete('notes.txt');",
      "({ before, written, listed, reports, text, removed, removedAgain })",
    ].join("\n");
    await t.putKit({ ws: { source } });
    const process = await t.activeProcess();

    // Act
    const { result } = await t.call(process, "skill_kit__ws");

    // Assess
    expect(result).toEqual({
      before: null,
      written: { path: "reports/diff.md", size: 13 },
      listed: [
        { path: "notes.txt", size: 1 },
        { path: "reports/diff.md", size: 13 },
      ],
      reports: [{ path: "reports/diff.md", size: 13 }],
      text: "line 1\nline 2",
      removed: true,
      removedAgain: false,
    });
    expect((await t.h.documents.list(TENANT, PROJECT, "")).map((d) => d.path)).toEqual(["_workspace/reports/diff.md"]);
  });

  it.each([
    ["a parent step", "../_vance/skills/kit/SKILL.md"],
    ["a nested parent step", "reports/../../secret.md"],
    ["an absolute path", "/etc/passwd"],
    ["a backslash", "reports\\..\\x"],
    ["an encoded dot segment", "%2e%2e/x"],
    ["an empty segment", "a//b"],
  ])("vance.workspace refuses %s with an error the script can catch", async (_label, path) => {
    // Prepare
    const t = await scriptHarness();
    await t.putKit({ esc: { source: `try { vance.workspace.write(args.path, 'x'); 'written' } catch (e) { e.code + ': ' + e.message }` } });
    const process = await t.activeProcess();

    // Act
    const { result } = await t.call(process, "skill_kit__esc", { path });

    // Assess
    expect(result).toMatch(/^INVALID_REQUEST: vance\.workspace\.write: /);
    expect(await t.h.documents.list(TENANT, PROJECT, "")).toEqual([]);
    expect(await t.h.documents.list(TENANT, "_tenant", "_vance/skills/kit/SKILL.md")).toHaveLength(1);
  });

  it("vance.workspace enforces the per-call size and the per-invocation quota", async () => {
    // Prepare
    const t = await scriptHarness();
    const source = [
      "const big = 'x'.repeat(1024 * 1024 + 1);",
      "let one; try { vance.workspace.write('big.txt', big); one = 'written' } catch (e) { one = e.message }",
      "const chunk = 'y'.repeat(1024 * 1024 - 100);",
      "let total = 0; let stop;",
      "try { for (let i = 0; i < 20; i++) { vance.workspace.write('c' + i + '.txt', chunk); total++ } } catch (e) { stop = e.message }",
      "({ one, total, stop })",
    ].join("\n");
    await t.putKit({ quota: { source } });
    const process = await t.activeProcess();

    // Act
    const { result } = (await t.call(process, "skill_kit__quota")) as { result: { one: string; total: number; stop: string } };

    // Assess
    expect(result.one).toContain("larger than 1048576 bytes");
    expect(result.total).toBe(8);
    expect(result.stop).toContain("more than 8388608 bytes");
  });

  it("vance.context() gives read-only process, skill, script and recipe metadata", async () => {
    // Prepare
    const t = await scriptHarness();
    await t.putKit({
      ctx: { source: "const c = vance.context(); c.process.processId = 'forged'; ({ first: c, second: vance.context() })" },
    });
    const process = await t.activeProcess();

    // Act
    const { result } = (await t.call(process, "skill_kit__ctx")) as { result: { first: unknown; second: Record<string, unknown> } };

    // Assess
    expect(result.second).toEqual({
      tenant: TENANT,
      user: "alice",
      process: {
        processId: process.processId,
        name: process.name,
        sessionId: process.sessionId,
        projectId: PROJECT,
        status: "ACTIVE",
        mode: null,
        statusText: null,
        activeSkills: [{ name: "kit", oneShot: false, fromRecipe: false }],
      },
      skill: { name: "kit", title: "A Skill", version: "1.0.0", source: "VANCE" },
      script: { name: "ctx", target: "BRAIN" },
      recipe: { name: "open", engine: "ford", locked: false },
      depth: 0,
    });
  });

  it("vance.tool calls another tool the process has (a script, a service tool) and refuses one it lacks", async () => {
    // Prepare
    const t = await scriptHarness();
    await t.putKit(
      {
        outer: {
          source: [
            "const inner = vance.tool('skill_kit__inner', { n: 2 });",
            "const ref = vance.tool('skill_reference_doc', { skill: 'kit', title: 'Guide' });",
            "let missing; try { vance.tool('web_search', {}) } catch (e) { missing = e.code }",
            "({ inner, ref: ref.content, missing })",
          ].join("\n"),
        },
        inner: { source: "({ doubled: args.n * 2, depth: vance.context().depth })" },
      },
      "referenceDocs:\n  - title: Guide\n    file: references/guide.md\n    loadMode: ON_DEMAND",
    );
    await t.h.putFile("_vance/skills/kit/references/guide.md", "the guide");
    const process = await t.activeProcess();

    // Act
    const { result } = await t.call(process, "skill_kit__outer");

    // Assess
    expect(result).toEqual({ inner: { doubled: 4, depth: 1 }, ref: "the guide", missing: "TOOL_NOT_FOUND" });
  });

  it("vance.tool re-entrancy stops at the depth limit with a typed error", async () => {
    // Prepare
    const t = await scriptHarness({ maxDepth: 3 });
    await t.putKit({ again: { source: "vance.log('depth ' + vance.context().depth); vance.tool('skill_kit__again', {}) + 1" } });
    const process = await t.activeProcess();

    // Act
    const error = await failureOf(t.call(process, "skill_kit__again"));

    // Assess
    expect(error).toBeInstanceOf(ScriptError);
    expect((error as ScriptError).message).toBe("scripts nested deeper than 3 levels");
    expect((error as ScriptError).logs).toEqual([{ level: "info", message: "depth 0" }]);
  });

  it("refuses a nested call that starts below the depth limit before reading anything", async () => {
    // Prepare
    const t = await scriptHarness({ maxDepth: 0 });
    await t.putKit({
      outer: { source: "try { vance.tool('skill_kit__inner', {}) } catch (e) { e.code + ' ' + e.message }" },
      inner: { source: "1" },
    });
    const process = await t.activeProcess();

    // Act
    const { result } = await t.call(process, "skill_kit__outer");

    // Assess
    expect(result).toBe(`INVALID_REQUEST ${new ScriptDepthExceeded(0).message}`);
  });
});

describe("script tools: FOOT target", () => {
  it("answers 'ERROR: foot routing not available' without a route or without a subscribed client", async () => {
    // Prepare
    const noRoute = await scriptHarness();
    const noClient = await scriptHarness({ foot: { execute: async () => ({ routed: false }) } });
    for (const t of [noRoute, noClient]) await t.putKit({ local: { source: "vance.fs.read('x')", target: "FOOT" } });

    // Act
    const withoutRoute = await noRoute.call(await noRoute.activeProcess(), "skill_kit__local");
    const withoutClient = await noClient.call(await noClient.activeProcess(), "skill_kit__local");

    // Assess
    expect(withoutRoute).toEqual({ result: FOOT_NOT_AVAILABLE, logs: [] });
    expect(withoutClient).toEqual({ result: FOOT_NOT_AVAILABLE, logs: [] });
  });

  it("hands skill, script, args and the source from the skill's layer to the Foot port, and returns its answer", async () => {
    // Prepare
    const requests: FootScriptRequest[] = [];
    const foot: FootPort = {
      execute: async (request) => {
        requests.push(request);
        return { routed: true, result: { ok: true }, logs: [{ level: "info", message: "ran on foot" }] };
      },
    };
    const t = await scriptHarness({ foot });
    await t.putKit({ local: { source: "vance.fs.list('')", target: "FOOT" } });
    const process = await t.activeProcess();

    // Act
    const outcome = await t.call(process, "skill_kit__local", { dir: "src" });

    // Assess
    expect(outcome).toEqual({ result: { ok: true }, logs: [{ level: "info", message: "ran on foot" }] });
    expect(requests).toEqual([
      expect.objectContaining({
        tenant: TENANT,
        processId: process.processId,
        skillName: "kit",
        scriptName: "local",
        args: { dir: "src" },
        source: "vance.fs.list('')",
      }),
    ]);
  });
});
