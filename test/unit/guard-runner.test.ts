import { afterAll, describe, expect, it } from "vitest";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { SandboxedGuardRunner } from "../../shared/guards/sandboxed-guard-runner.js";
import { DisabledLlm } from "../../shared/llm/llm-port.js";
import type { LlmCallOptions, LlmPort } from "../../shared/llm/llm-port.js";
import { newProcess } from "../../shared/processes/process.js";
import type { GuardConfig, Process } from "../../shared/processes/process.js";
import { SandboxPool } from "../../shared/sandbox/sandbox-pool.js";
import type { GuardEvaluation } from "../../shared/turns/guard-runner.js";
import { EmptyLayer } from "../support/steering-harness.js";
import type { Logger } from "../../shared/support/logger.js";

const pool = new SandboxPool({ size: 2 });
afterAll(() => pool.close());

/** The code-guard of spec §2a, verbatim. */
const CODE_GUARD = `
const res = vance.llm.callForJson("completion-guard", "Evaluate the guard condition.", {
  judge: "Has a development task of the user been completed?",
  task: vance.guard.task,
  output: vance.guard.output,
});
if (res && res.fire) {
  vance.guard.continueWith("Was the build run and the specification updated?");
}
`;

class RecordingLlm implements LlmPort {
  readonly calls: { name: string; instruction: string; input: unknown }[] = [];
  constructor(private readonly answer: (options: LlmCallOptions | undefined) => Promise<unknown>) {}
  async callForJson(name: string, instruction: string, input: unknown, options?: LlmCallOptions): Promise<unknown> {
    this.calls.push({ name, instruction, input });
    return this.answer(options);
  }
}

class RecordingLogger implements Pick<Logger, "info" | "warn"> {
  readonly warnings: { message: string; extra: Record<string, unknown>[] }[] = [];
  readonly infos: { message: string; extra: Record<string, unknown>[] }[] = [];
  info(message: string, ...extra: Record<string, unknown>[]): void {
    this.infos.push({ message, extra });
  }
  warn(message: string, ...extra: Record<string, unknown>[]): void {
    this.warnings.push({ message, extra });
  }
}

const processWith = (guard: GuardConfig | null): Process =>
  newProcess({
    tenant: "acme",
    processId: "p1",
    sessionId: "s1",
    name: "main",
    recipe: "open",
    engine: "ford",
    projectId: "proj1",
    userId: "alice",
    guard,
  });

const evaluation = (guard: GuardConfig | null, extra: Partial<GuardEvaluation> = {}): GuardEvaluation => ({
  process: processWith(guard),
  turnId: "t1",
  task: "Add a login form",
  output: "Implemented the login form.",
  final: false,
  ...extra,
});

function runner(options: { llm?: LlmPort; llmTimeoutMs?: number; timeoutMs?: number; documents?: InMemoryDocumentStore } = {}) {
  const logger = new RecordingLogger();
  const guard = new SandboxedGuardRunner({
    sources: { store: options.documents ?? new InMemoryDocumentStore(), bundled: new EmptyLayer() },
    llm: options.llm ?? new DisabledLlm(),
    pool,
    logger,
    ...(options.llmTimeoutMs !== undefined ? { llmTimeoutMs: options.llmTimeoutMs } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
  return { guard, logger };
}

describe("SandboxedGuardRunner", () => {
  it("runs the spec's code-guard: the LLM sees task and output, and a firing verdict asks for another turn", async () => {
    // Prepare
    const llm = new RecordingLlm(async () => ({ fire: true }));
    const { guard } = runner({ llm });

    // Act
    const verdict = await guard.evaluate(evaluation({ type: "inline", source: CODE_GUARD }));

    // Assess
    expect(verdict).toEqual({ continueWith: "Was the build run and the specification updated?" });
    expect(llm.calls).toEqual([
      {
        name: "completion-guard",
        instruction: "Evaluate the guard condition.",
        input: {
          judge: "Has a development task of the user been completed?",
          task: "Add a login form",
          output: "Implemented the login form.",
        },
      },
    ]);
  });

  it("says nothing when the LLM does not fire", async () => {
    // Prepare
    const { guard } = runner({ llm: new RecordingLlm(async () => ({ fire: false })) });

    // Act
    const verdict = await guard.evaluate(evaluation({ type: "inline", source: CODE_GUARD }));

    // Assess
    expect(verdict).toEqual({});
  });

  it("fails open when no LLM is configured (callForJson answers null)", async () => {
    // Prepare
    const { guard, logger } = runner({ llm: new DisabledLlm() });

    // Act
    const verdict = await guard.evaluate(evaluation({ type: "inline", source: CODE_GUARD }));

    // Assess
    expect(verdict).toEqual({});
    expect(logger.warnings).toEqual([]);
  });

  it.each([
    ["a throwing guard", "throw new Error('guard broke')", 3_000],
    ["a guard that times out", "for (;;) {}", 300],
    ["a guard that asked to continue and then threw", "vance.guard.continueWith('first'); null.x", 3_000],
    ["a guard with a syntax error", "if (", 3_000],
    ["a continueWith without text", "vance.guard.continueWith(42)", 3_000],
  ])("fails open for %s: logged, no follow-up", async (_label, source, timeoutMs) => {
    // Prepare
    const { guard, logger } = runner({ llmTimeoutMs: 50, timeoutMs });

    // Act
    const verdict = await guard.evaluate(evaluation({ type: "inline", source }));

    // Assess
    expect(verdict).toEqual({});
    expect(logger.warnings).toEqual([
      {
        message: expect.stringContaining("fail open"),
        extra: [expect.objectContaining({ processId: "p1", turnId: "t1", guardType: "inline" })],
      },
    ]);
  });

  it("keeps running past a slow LLM: the model's own timeout answers null before the guard deadline", async () => {
    // Prepare: the port answers null once its (short) timeout passes, as OpenAiChatLlm does.
    const llm = new RecordingLlm(() => new Promise((resolve) => setTimeout(() => resolve(null), 300)));
    const { guard } = runner({ llm, llmTimeoutMs: 300 });

    // Act
    const verdict = await guard.evaluate(
      evaluation({
        type: "inline",
        source:
          "const r = vance.llm.callForJson('judge', 'Judge it.', {}); vance.guard.continueWith(r === null ? 'no verdict' : 'verdict')",
      }),
    );

    // Assess
    expect(verdict).toEqual({ continueWith: "no verdict" });
  });

  it("refuses a guard deadline that does not exceed the LLM timeout", () => {
    // Act
    const build = () => runner({ llmTimeoutMs: 15_000, timeoutMs: 15_000 });

    // Assess
    expect(build).toThrow(TypeError);
  });

  it("keeps the last continueWith, logs vance.log into the structured log, and does not run for a final turn", async () => {
    // Prepare
    const llm = new RecordingLlm(async () => ({ fire: true }));
    const { guard, logger } = runner({ llm });
    const source = "vance.log('checking ' + vance.guard.output); vance.guard.continueWith('one'); vance.guard.continueWith('two')";

    // Act
    const verdict = await guard.evaluate(evaluation({ type: "inline", source }));
    const final = await guard.evaluate(evaluation({ type: "inline", source: CODE_GUARD }, { final: true }));

    // Assess
    expect(verdict).toEqual({ continueWith: "two" });
    expect(logger.infos).toEqual([
      {
        message: "guard log",
        extra: [expect.objectContaining({ guardLevel: "info", guardMessage: "checking Implemented the login form." })],
      },
    ]);
    expect(final).toEqual({});
    expect(llm.calls).toEqual([]);
  });

  it("reads `guard script <path>` from the pinned layer only, and from the cascade when no layer was recorded", async () => {
    // Prepare
    const documents = new InMemoryDocumentStore();
    await documents.put("acme", "proj1", "_vance/guards/check.js", "vance.guard.continueWith('from project')");
    await documents.put("acme", "_tenant", "_vance/guards/check.js", "vance.guard.continueWith('from tenant')");
    await documents.put("acme", "_tenant", "_vance/guards/tenant-only.js", "vance.guard.continueWith('tenant only')");
    const { guard, logger } = runner({ documents });

    // Act
    const pinnedTenant = await guard.evaluate(
      evaluation({ type: "script", path: "_vance/guards/check.js", layer: { source: "VANCE", project: "_tenant" } }),
    );
    const cascaded = await guard.evaluate(evaluation({ type: "script", path: "_vance/guards/check.js" }));
    const missingInPinned = await guard.evaluate(
      evaluation({ type: "script", path: "_vance/guards/tenant-only.js", layer: { source: "PROJECT", project: "proj1" } }),
    );

    // Assess
    expect(pinnedTenant).toEqual({ continueWith: "from tenant" });
    expect(cascaded).toEqual({ continueWith: "from project" });
    expect(missingInPinned).toEqual({});
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]?.extra[0]).toMatchObject({
      guardPath: "_vance/guards/tenant-only.js",
      error: { message: expect.stringContaining("not found") },
    });
  });

  it("refuses a pinned layer that is not part of the process's scope", async () => {
    // Prepare
    const documents = new InMemoryDocumentStore();
    await documents.put("acme", "other", "_vance/guards/check.js", "vance.guard.continueWith('foreign')");
    const { guard } = runner({ documents });

    // Act
    const verdict = await guard.evaluate(
      evaluation({ type: "script", path: "_vance/guards/check.js", layer: { source: "PROJECT", project: "other" } }),
    );

    // Assess
    expect(verdict).toEqual({});
  });
});
