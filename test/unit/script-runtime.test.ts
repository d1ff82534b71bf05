import { afterAll, describe, expect, it } from "vitest";
import { InvalidRequest } from "../../shared/errors.js";
import type { HostFunction } from "../../shared/sandbox/host-call.js";
import { SandboxPool } from "../../shared/sandbox/sandbox-pool.js";
import {
  ScriptDepthExceeded,
  ScriptError,
  ScriptFailure,
  ScriptMemoryExceeded,
  ScriptResultTooLarge,
  ScriptTimeout,
  type ScriptLogEntry,
} from "../../shared/sandbox/script-errors.js";
import { runScript, type RunScriptRequest } from "../../shared/sandbox/script-runtime.js";

// Generous upper bounds only prove "terminates".
const TERMINATES_WITHIN_MS = 10_000;
const BUDGET = { timeoutMs: 300, memoryBytes: 8 * 1024 * 1024 };

const pool = new SandboxPool({ size: 2 });
afterAll(() => pool.close());

const run = (request: Omit<RunScriptRequest, "pool">) => runScript({ ...request, pool });

const failureOf = async (promise: Promise<unknown>): Promise<{ error: unknown; elapsedMs: number }> => {
  const started = performance.now();
  try {
    await promise;
  } catch (error) {
    return { error, elapsedMs: performance.now() - started };
  }
  throw new Error("expected the script to fail");
};

const assertStillServing = async (): Promise<void> => {
  const outcome = await run({
    source: "vance.add(args.a, args.b)",
    args: { a: 2, b: 3 },
    bindings: { add: ([a, b]) => (a as number) + (b as number) },
  });
  expect(outcome.result).toBe(5);
};

describe("runScript: the spec §13.4 surface", () => {
  it("runs the spec's example: a synchronous tool call, a workspace write, the last expression as result", async () => {
    // Prepare
    const written: Array<[unknown, unknown]> = [];
    const bindings = {
      tool: ([name, params]: unknown[]) => (name === "git_diff" ? `diff for ${(params as { range: string }).range}\n+a\n-b` : null),
      workspace: {
        write: ([path, content]: unknown[]) => {
          written.push([path, content]);
        },
      },
    };
    const source = [
      "const diff = vance.tool('git_diff', { range: 'HEAD~1' });",
      "vance.workspace.write('reports/diff.md', diff);",
      "({ lines: diff.split('\\n').length });",
    ].join("\n");

    // Act
    const outcome = await run({ source, bindings });

    // Assess
    expect(outcome.result).toEqual({ lines: 3 });
    expect(written).toEqual([["reports/diff.md", "diff for HEAD~1\n+a\n-b"]]);
  });

  it("exposes args and JSON bindings as data beside host functions", async () => {
    // Prepare
    const continued: unknown[] = [];
    const bindings = {
      guard: {
        task: "implement login",
        output: "done, tests pass",
        continueWith: ([text]: unknown[]) => {
          continued.push(text);
        },
      },
    };

    // Act
    const outcome = await run({
      source:
        "if (vance.guard.output.includes('done')) vance.guard.continueWith('Was the build run for ' + vance.guard.task + '?'); args.n * 2",
      args: { n: 21 },
      bindings,
    });

    // Assess
    expect(outcome.result).toBe(42);
    expect(continued).toEqual(["Was the build run for implement login?"]);
  });

  it("awaits a promise as the last expression", async () => {
    // Act
    const outcome = await run({ source: "(async () => { await null; return vance.get() + 1; })()", bindings: { get: () => 41 } });

    // Assess
    expect(outcome.result).toBe(42);
  });

  it("treats a top-level return as the SyntaxError the spec says it is", async () => {
    // Act
    const { error } = await failureOf(run({ source: "return 1" }));

    // Assess
    expect(error).toBeInstanceOf(ScriptError);
    expect((error as ScriptError).guestErrorName).toBe("SyntaxError");
  });

  it("refuses a binding named log: vance.log belongs to the runtime", async () => {
    // Act
    const { error } = await failureOf(run({ source: "1", bindings: { log: () => undefined } }));

    // Assess
    expect(error).toBeInstanceOf(TypeError);
  });
});

describe("runScript: vance.log", () => {
  it("collects levelled logs in order, normalizing unknown levels and non-string messages", async () => {
    // Prepare
    const streamed: ScriptLogEntry[] = [];

    // Act
    const outcome = await run({
      source:
        "vance.log('info', 'start'); vance.log('WARN', 'careful'); vance.log('shout', 'odd level'); vance.log('debug', { n: 1 }); vance.log('just a message'); 'ok'",
      onLog: (entry) => streamed.push(entry),
    });

    // Assess
    expect(outcome.logs).toEqual([
      { level: "info", message: "start" },
      { level: "warn", message: "careful" },
      { level: "info", message: "odd level" },
      { level: "debug", message: '{"n":1}' },
      { level: "info", message: "just a message" },
    ]);
    expect(streamed).toEqual(outcome.logs);
    expect(outcome.droppedLogs).toBe(0);
  });

  it("caps the number of entries and the length of each message", async () => {
    // Act
    const outcome = await run({
      source: "for (let i = 0; i < 50; i++) vance.log('info', 'line ' + i + ' ' + 'x'.repeat(100)); 'ok'",
      limits: { maxLogEntries: 10, maxLogMessageChars: 20 },
    });

    // Assess
    expect(outcome.logs).toHaveLength(10);
    expect(outcome.logs[0]).toEqual({ level: "info", message: `line 0 ${"x".repeat(13)}…` });
    expect(outcome.droppedLogs).toBe(40);
  });

  it("keeps the logs written before a failure on the typed error", async () => {
    // Act
    const { error } = await failureOf(run({ source: "vance.log('info', 'before');\nthrow new Error('boom');" }));

    // Assess
    expect(error).toBeInstanceOf(ScriptError);
    expect((error as ScriptError).logs).toEqual([{ level: "info", message: "before" }]);
  });
});

describe("runScript: typed errors and limits", () => {
  it("reports a thrown error with the script's message and line", async () => {
    // Act
    const { error } = await failureOf(run({ source: "const a = 1;\nconst b = 2;\nthrow new RangeError('bad ' + (a + b));" }));

    // Assess
    expect(error).toBeInstanceOf(ScriptError);
    expect(error).toMatchObject({ message: "bad 3", guestErrorName: "RangeError", line: 3, code: "INVALID_REQUEST" });
  });

  it("stops an infinite loop with ScriptTimeout and keeps serving", async () => {
    // Act
    const { error, elapsedMs } = await failureOf(run({ source: "for (;;) {}", limits: BUDGET }));

    // Assess
    expect(error).toBeInstanceOf(ScriptTimeout);
    expect(elapsedMs).toBeLessThan(TERMINATES_WITHIN_MS);
    await assertStillServing();
  });

  it("stops a memory bomb with ScriptMemoryExceeded and keeps serving", async () => {
    // Act
    const { error } = await failureOf(
      run({
        source: "const parts = []; for (;;) parts.push('x'.repeat(1 << 16) + parts.length);",
        limits: { ...BUDGET, timeoutMs: 5_000 },
      }),
    );

    // Assess
    expect(error).toBeInstanceOf(ScriptMemoryExceeded);
    expect((error as ScriptMemoryExceeded).kind).toBe("heap");
    await assertStillServing();
  });

  it("turns unbounded recursion into ScriptMemoryExceeded (stack) and keeps serving", async () => {
    // Act
    const { error } = await failureOf(run({ source: "function down(n) { return down(n + 1) + 1; } down(0)", limits: BUDGET }));

    // Assess
    expect(error).toBeInstanceOf(ScriptMemoryExceeded);
    expect((error as ScriptMemoryExceeded).kind).toBe("stack");
    await assertStillServing();
  });

  it("refuses a huge result with ScriptResultTooLarge", async () => {
    // Act
    const { error } = await failureOf(run({ source: "'x'.repeat(2e6)", limits: { ...BUDGET, maxResultBytes: 64 * 1024 } }));

    // Assess
    expect(error).toBeInstanceOf(ScriptResultTooLarge);
    expect(error).toBeInstanceOf(ScriptError);
  });

  it("times out a script whose host call never returns, and keeps serving", async () => {
    // Act
    const { error, elapsedMs } = await failureOf(
      run({ source: "vance.tool('hang')", bindings: { tool: () => new Promise(() => undefined) }, limits: BUDGET }),
    );

    // Assess
    expect(error).toBeInstanceOf(ScriptTimeout);
    expect(elapsedMs).toBeLessThan(TERMINATES_WITHIN_MS);
    await assertStillServing();
  });

  it("lets the script catch a sanitized host error and report it", async () => {
    // Prepare
    const hostErrors: unknown[] = [];

    // Act
    const outcome = await run({
      source: "try { vance.tool('missing', {}) } catch (e) { e.name + ': ' + e.message + ' (' + e.code + ')' }",
      bindings: {
        tool: () => {
          throw new InvalidRequest("tool 'missing' is not available to this process");
        },
      },
      onHostError: (_path, error) => hostErrors.push(error),
    });

    // Assess
    expect(outcome.result).toBe("HostError: tool 'missing' is not available to this process (INVALID_REQUEST)");
    expect(hostErrors).toHaveLength(1);
  });
});

describe("runScript: re-entrancy through vance.tool", () => {
  /** A tool that runs a script which calls the same tool again, as skill scripts calling tools would. */
  const recursiveTool = (depthsSeen: number[]): HostFunction => {
    const tool: HostFunction = async (_args, call) => {
      depthsSeen.push(call.depth);
      const nested = await runScript({
        source: "vance.tool('again') + 1",
        bindings: { tool },
        depth: call.depth + 1,
        signal: call.signal,
        pool,
      });
      return nested.result;
    };
    return tool;
  };

  it("allows nesting down to maxDepth and surfaces ScriptDepthExceeded below it to the calling script", async () => {
    // Prepare
    const depthsSeen: number[] = [];

    // Act
    const { error } = await failureOf(
      run({ source: "vance.tool('again') + 1", bindings: { tool: recursiveTool(depthsSeen) }, maxDepth: 3 }),
    );

    // Assess
    expect(depthsSeen).toEqual([0, 1, 2, 3]);
    expect(error).toBeInstanceOf(ScriptError);
    expect((error as ScriptError).message).toBe("scripts nested deeper than 3 levels");
    await assertStillServing();
  });

  it("lets a script catch the depth error and carry on", async () => {
    // Act
    const outcome = await run({
      source: "let r; try { r = vance.tool('again'); } catch (e) { r = 'stopped: ' + e.code; } r",
      bindings: { tool: recursiveTool([]) },
      maxDepth: 1,
    });

    // Assess
    expect(outcome.result).toBe("stopped: INVALID_REQUEST");
  });

  it("refuses to start a script already below the depth limit", async () => {
    // Act
    const { error } = await failureOf(run({ source: "1", depth: 4 }));

    // Assess
    expect(error).toBeInstanceOf(ScriptDepthExceeded);
    expect(error).toBeInstanceOf(ScriptFailure);
  });
});
