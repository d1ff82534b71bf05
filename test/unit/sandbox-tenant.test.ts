import { afterAll, describe, expect, it } from "vitest";
import { resolvedSkill } from "../../bench/compose-bench-helpers.js";
import { renderPrompt } from "../../shared/app/mcp/mcp-prompts.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { SandboxedGuardRunner } from "../../shared/guards/sandboxed-guard-runner.js";
import { DisabledLlm } from "../../shared/llm/llm-port.js";
import { newProcess } from "../../shared/processes/process.js";
import type { Process } from "../../shared/processes/process.js";
import { SandboxPool, type SandboxRequest } from "../../shared/sandbox/sandbox-pool.js";
import { runScript } from "../../shared/sandbox/script-runtime.js";
import { WorkspaceBudget } from "../../shared/scripts/script-workspace.js";
import { SkillScriptRunner } from "../../shared/scripts/skill-script-runner.js";
import { createTemplateRenderer } from "../../shared/templates/sandboxed-template-renderer.js";
import type { RenderContext, RenderOptions, TemplateRenderer } from "../../shared/templates/template-renderer.js";
import { ALICE, EmptyLayer, steeringHarness, TENANT } from "../support/steering-harness.js";

// The sandbox serves tenants in turn (fair-queue.ts); these pin that every entry point hands the
// pool the tenant its work is for, now that no ambient context carries it.

const pool = new SandboxPool({ size: 1 });
afterAll(() => pool.close());

/** The shared pool, recording the fairness key of every evaluation. */
const recordingPool = (): { pool: SandboxPool; keys: (string | undefined)[] } => {
  const keys: (string | undefined)[] = [];
  const recording = new Proxy(pool, {
    get(target, property, receiver) {
      if (property === "evaluate") {
        return (request: SandboxRequest) => {
          keys.push(request.fairnessKey);
          return target.evaluate(request);
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { pool: recording, keys };
};

const processOf = (tenant: string): Process =>
  newProcess({
    tenant,
    processId: "p1",
    sessionId: "s1",
    name: "main",
    recipe: "open",
    engine: "ford",
    projectId: "proj1",
    userId: "alice",
    guard: { type: "inline", source: "1" },
  });

describe("the tenant reaches the sandbox pool", () => {
  it("queues a lane turn's skill renders as the process's tenant", async () => {
    // Prepare
    const recorder = recordingPool();
    const h = await steeringHarness({ renderer: createTemplateRenderer({ pool: recorder.pool, timeoutMs: 5_000 }) });
    await h.putSkill("greeter", { body: "Hello {{ tier }}." });
    const p = await h.spawn();
    await h.activate(p.processId, "greeter");

    // Act
    const record = await h.compose(p.processId, "hi");

    // Assess
    expect(record.status).toBe("DONE");
    expect(recorder.keys).toEqual([TENANT]);
  });

  it("queues a preview's renders, the recipe's templated prefix included, as the process's tenant", async () => {
    // Prepare
    const recorder = recordingPool();
    const h = await steeringHarness({ renderer: createTemplateRenderer({ pool: recorder.pool, timeoutMs: 5_000 }) });
    await h.putFile("_vance/recipes/templated.yaml", "engine: ford\npromptPrefix: 'Prefix for {{ engine }}.'\n");
    await h.putSkill("greeter", { body: "Hello {{ tier }}." });
    const p = await h.spawn("templated");
    await h.activate(p.processId, "greeter");

    // Act
    const turn = await h.app.previewTurn(TENANT, p.processId, ALICE, "hi");

    // Assess
    expect(turn.systemPrompt.map((m) => m.content).join("\n")).toContain("Prefix for ford.");
    expect(recorder.keys).toEqual([TENANT, TENANT]);
  });

  it("queues an activation's `action:` render as the process's tenant", async () => {
    // Prepare
    const recorder = recordingPool();
    const h = await steeringHarness({ renderer: createTemplateRenderer({ pool: recorder.pool, timeoutMs: 5_000 }) });
    await h.putSkill("reviewer", { extra: "action: 'Review for {{ engine }}'", body: "Plain." });
    const p = await h.spawn();

    // Act
    const record = await h.activate(p.processId, "reviewer");

    // Assess
    expect(record.status).toBe("DONE");
    expect(recorder.keys).toEqual([TENANT]);
  });

  it("queues skill_activate's one-skill render as the process's tenant", async () => {
    // Prepare
    const recorder = recordingPool();
    const h = await steeringHarness({ renderer: createTemplateRenderer({ pool: recorder.pool, timeoutMs: 5_000 }) });
    await h.putSkill("greeter", { body: "Hello {{ tier }}." });
    const p = await h.spawn();
    await h.activate(p.processId, "greeter");

    // Act
    const rendered = await h.app.turns.renderSkill(await h.app.getProcess(TENANT, p.processId), "greeter");

    // Assess
    expect(rendered.content).toContain("Hello");
    expect(recorder.keys).toEqual([TENANT]);
  });

  it("lets concurrent callers of one render share it, queued as the first caller's tenant", async () => {
    // Prepare
    const recorder = recordingPool();
    const renderer = createTemplateRenderer({ pool: recorder.pool, timeoutMs: 5_000 });

    // Act
    const outputs = await Promise.all([
      renderer.render("{{ tier }}!", { tier: "t" }, { tenant: "tenant-a" }),
      renderer.render("{{ tier }}!", { tier: "t" }, { tenant: "tenant-b" }),
    ]);

    // Assess
    expect(outputs).toEqual(["t!", "t!"]);
    expect(recorder.keys).toEqual(["tenant-a"]);
  });

  it("queues MCP prompts/get renders (body and turn prompt) with the options it is given", async () => {
    // Prepare
    const seen: (string | undefined)[] = [];
    const renderer: TemplateRenderer = {
      render: async (template: string, _context: RenderContext, options?: RenderOptions) => {
        seen.push(options?.tenant);
        return template;
      },
    };
    const context = { section: async () => ({}), activation: async () => ({}) };
    const sticky = resolvedSkill({ name: "sticky", body: "{{ tier }} body" });
    const shot = resolvedSkill({ name: "shot", lifecycle: "shot", body: "{{ tier }} shot" });

    // Act
    await renderPrompt(sticky, undefined, renderer, context, { tenant: "tenant-a" });
    await renderPrompt(shot, undefined, renderer, context, { tenant: "tenant-b" });

    // Assess
    expect(seen).toEqual(["tenant-a", "tenant-b"]);
  });

  it("queues runScript, a skill script and a guard as the tenant they are run for", async () => {
    // Prepare
    const recorder = recordingPool();
    const process = processOf("tenant-s");
    const scripts = new SkillScriptRunner({
      loader: { readSkillFile: async () => "args.n + 1" },
      documents: new InMemoryDocumentStore(),
      pool: recorder.pool,
    });
    const guard = new SandboxedGuardRunner({
      sources: { store: new InMemoryDocumentStore(), bundled: new EmptyLayer() },
      llm: new DisabledLlm(),
      pool: recorder.pool,
    });

    // Act
    const direct = await runScript({ source: "2", pool: recorder.pool, tenant: "tenant-r" });
    const tool = await scripts.run({
      process,
      user: ALICE,
      tool: { name: "skill_kit__inc", skill: resolvedSkill({ name: "kit" }), script: { name: "inc", file: "inc.js", target: "BRAIN" } },
      args: { n: 1 },
      depth: 0,
      budget: new WorkspaceBudget(),
      callTool: async () => null,
    });
    const verdict = await guard.evaluate({ process, turnId: "t1", output: "done", final: false });

    // Assess
    expect([direct.result, tool.result, verdict]).toEqual([2, 2, {}]);
    expect(recorder.keys).toEqual(["tenant-r", "tenant-s", "tenant-s"]);
  });
});
