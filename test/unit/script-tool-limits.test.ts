import { afterAll, describe, expect, it } from "vitest";
import type { Process } from "../../shared/processes/process.js";
import { SandboxPool } from "../../shared/sandbox/sandbox-pool.js";
import { ScriptError, ScriptMemoryExceeded, ScriptResultTooLarge, ScriptTimeout } from "../../shared/sandbox/script-errors.js";
import { SkillScriptRunner } from "../../shared/scripts/skill-script-runner.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";
import { SERVICE_TOOLS } from "../../shared/tools/service-tools.js";
import { ToolInvoker } from "../../shared/tools/tool-invoker.js";
import { ALICE, EmptyLayer, steeringHarness } from "../support/steering-harness.js";

// Generous upper bounds only prove "terminates".
const TERMINATES_WITHIN_MS = 15_000;

const pool = new SandboxPool({ size: 2 });
afterAll(() => pool.close());

/** Skill `kit` with one script `run` (source per test) and a `probe` script, active on a fresh process. */
const LIMITS = { timeoutMs: 500, memoryBytes: 8 * 1024 * 1024, maxResultBytes: 64 * 1024 };

async function withScript(source: string, limits = LIMITS) {
  const h = await steeringHarness();
  const sources = { store: h.documents, bundled: new EmptyLayer() };
  const invoker = new ToolInvoker({
    sources,
    preview: (process, user) => h.app.turns.preview(process, undefined, undefined, user),
    tools: SERVICE_TOOLS,
    scripts: new SkillScriptRunner({ loader: new SkillLoader(sources), documents: h.documents, pool, limits }),
  });
  await h.putSkill("kit", { extra: "scripts:\n  - name: run\n    file: scripts/run.js\n  - name: probe\n    file: scripts/probe.js" });
  await h.putFile("_vance/skills/kit/scripts/run.js", source);
  await h.putFile(
    "_vance/skills/kit/scripts/probe.js",
    "({ polluted: typeof ({}).polluted, argKeys: Object.keys(args), plainArgs: Object.getPrototypeOf(args) === Object.prototype, hasProcess: typeof process })",
  );
  const p = await h.spawn("open");
  await h.activate(p.processId, "kit");
  const process: Process = await h.process(p.processId);
  const call = (tool = "skill_kit__run") => invoker.invoke(process, ALICE, tool, {});
  return { h, call };
}

const failureOf = async (promise: Promise<unknown>): Promise<{ error: unknown; elapsedMs: number }> => {
  const started = performance.now();
  try {
    await promise;
  } catch (error) {
    return { error, elapsedMs: performance.now() - started };
  }
  throw new Error("expected the script to fail");
};

const assertStillServing = async (call: (tool?: string) => Promise<unknown>): Promise<void> => {
  expect(await call("skill_kit__probe")).toMatchObject({ result: { polluted: "undefined", hasProcess: "undefined" } });
};

describe("script tools: limits through the tool path", () => {
  it.each([
    ["an infinite loop", "for (;;) {}", ScriptTimeout, LIMITS],
    [
      "a built-in that never polls the interrupt handler",
      "Array.prototype.indexOf.call({ length: 2 ** 32 - 1 }, 0)",
      ScriptTimeout,
      LIMITS,
    ],
    [
      "a memory bomb",
      "const parts = []; for (;;) parts.push('x'.repeat(1 << 16) + parts.length);",
      ScriptMemoryExceeded,
      { ...LIMITS, timeoutMs: 8_000 },
    ],
    ["unbounded recursion", "function down(n) { return down(n + 1) + 1; } down(0)", ScriptMemoryExceeded, LIMITS],
    ["a huge result", "'x'.repeat(2e6)", ScriptResultTooLarge, LIMITS],
  ])("contains %s with a typed error and keeps serving", async (_label, source, type, limits) => {
    // Prepare
    const t = await withScript(source, limits);

    // Act
    const { error, elapsedMs } = await failureOf(t.call());

    // Assess
    expect(error).toBeInstanceOf(type);
    expect((error as { code: string }).code).toBe("INVALID_REQUEST");
    expect(elapsedMs).toBeLessThan(TERMINATES_WITHIN_MS);
    await assertStillServing(t.call);
  });
});

describe("script tools: escapes through the tool path", () => {
  it.each([
    ["require", "require('fs').readFileSync('/etc/passwd', 'utf8')"],
    ["process", "process.env"],
    ["globalThis.constructor", "globalThis.constructor.constructor('return process')().env"],
    ["a host function's constructor", "vance.context.constructor('return process')().env"],
    ["import()", "import('node:fs')"],
    ["eval of process", "eval('process.env')"],
    ["indirect eval of require", "(0, eval)('require')('child_process')"],
    ["Function from a prototype chain", "[].constructor.constructor('return require')()('fs')"],
  ])("contains %s with a ScriptError and no host access", async (_label, source) => {
    // Prepare
    const t = await withScript(source);

    // Act
    const { error } = await failureOf(t.call());

    // Assess
    expect(error).toBeInstanceOf(ScriptError);
    expect((error as Error).message).not.toMatch(/\/work\/|node_modules|at .*\.ts/);
    await assertStillServing(t.call);
  });

  it("finds no host global behind eval, Function or globalThis", async () => {
    // Prepare
    const t = await withScript(
      "[typeof process, typeof require, typeof module, typeof Buffer, eval('typeof process'), (0, eval)('typeof require'), Function('return typeof process')(), typeof globalThis.process]",
    );

    // Act
    const { result } = await t.call();

    // Assess
    expect(result).toEqual(Array(8).fill("undefined"));
  });

  it("keeps prototype pollution in the guest: neither the host nor the next script sees it, and no __proto__ key reaches a tool", async () => {
    // Prepare
    const t = await withScript(
      [
        "Object.prototype.polluted = 'yes';",
        "Object.getPrototypeOf(vance).polluted = 'yes';",
        "vance.workspace.__proto__.hijacked = true;",
        "vance.context.constructor.prototype.hijacked = true;",
        "vance.tool = () => 'replaced';",
        "globalThis.__proto__.x = 1;",
        "[vance.tool('x'), vance.workspace.read('none.txt')]",
      ].join("\n"),
    );
    const smuggle = await withScript('vance.tool(\'skill_kit__probe\', JSON.parse(\'{"__proto__": {"polluted": "yes"}, "k": 1}\'))');

    // Act
    const polluted = await t.call();
    const probed = await smuggle.call();
    const fresh = await t.call("skill_kit__probe");

    // Assess
    expect(polluted.result).toEqual(["replaced", null]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("hijacked");
    expect(probed.result).toEqual({ polluted: "undefined", argKeys: ["k"], plainArgs: true, hasProcess: "undefined" });
    expect(fresh.result).toMatchObject({ polluted: "undefined" });
  });
});
