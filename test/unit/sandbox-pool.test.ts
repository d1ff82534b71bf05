import { afterAll, describe, expect, it } from "vitest";
import {
  SandboxError,
  SandboxMemoryExceeded,
  SandboxOutputTooLarge,
  SandboxTimeout,
  SandboxUnavailable,
} from "../../shared/sandbox/sandbox-errors.js";
import { SandboxPool } from "../../shared/sandbox/sandbox-pool.js";

// Generous upper bounds only prove "terminates"; the budgets themselves are small.
const BUDGET = { timeoutMs: 300, memoryBytes: 8 * 1024 * 1024 };
const TERMINATES_WITHIN_MS = 10_000;

const pool = new SandboxPool({ size: 2, timeoutMs: 5_000 });
afterAll(() => pool.close());

const failureOf = async (promise: Promise<unknown>): Promise<{ error: unknown; elapsedMs: number }> => {
  const started = performance.now();
  try {
    await promise;
  } catch (error) {
    return { error, elapsedMs: performance.now() - started };
  }
  throw new Error("expected the evaluation to fail");
};

const assertStillServing = async (): Promise<void> => {
  const results = await Promise.all([1, 2, 3, 4].map((n) => pool.evaluate({ code: `[${n}, ${n} * 2]` })));
  expect(results).toEqual([
    [1, 2],
    [2, 4],
    [3, 6],
    [4, 8],
  ]);
};

describe("SandboxPool: evaluation", () => {
  it("returns the completion value as JSON data and sees injected globals", async () => {
    // Prepare
    const request = {
      code: "({ sum: input.a + input.b, names: input.names.map((n) => n.toUpperCase()) })",
      globals: { input: { a: 2, b: 3, names: ["x", "y"] } },
    };

    // Act
    const result = await pool.evaluate(request);

    // Assess
    expect(result).toEqual({ sum: 5, names: ["X", "Y"] });
  });

  it("gives the guest no host: no process, require, module, fetch or setTimeout", async () => {
    // Act
    const result = await pool.evaluate({
      code: "[typeof process, typeof require, typeof module, typeof fetch, typeof setTimeout, typeof globalThis.process, typeof Function('return this')().process]",
    });

    // Assess
    expect(result).toEqual(Array(7).fill("undefined"));
  });

  it("settles a guest promise", async () => {
    // Act
    const result = await pool.evaluate({ code: "(async () => { await null; return 'done'; })()" });

    // Assess
    expect(result).toBe("done");
  });

  it("returns undefined for a completion value JSON cannot represent", async () => {
    // Act
    const result = await pool.evaluate({ code: "undefined" });

    // Assess
    expect(result).toBeUndefined();
  });

  it("runs every evaluation in a fresh context: guest state never carries over", async () => {
    // Prepare
    const code =
      "Object.prototype.seen = (Object.prototype.seen || 0) + 1; globalThis.counter = (globalThis.counter || 0) + 1; [counter, ({}).seen]";

    // Act
    const first = await pool.evaluate({ code });
    const second = await pool.evaluate({ code });

    // Assess
    expect(first).toEqual([1, 1]);
    expect(second).toEqual([1, 1]);
    expect(({} as Record<string, unknown>).seen).toBeUndefined();
  });

  it("serves many concurrent evaluations correctly on two workers", async () => {
    // Prepare
    const inputs = Array.from({ length: 12 }, (_, i) => i);

    // Act
    const results = await Promise.all(inputs.map((i) => pool.evaluate({ code: "n * n", globals: { n: i } })));

    // Assess
    expect(results).toEqual(inputs.map((i) => i * i));
  });
});

describe("SandboxPool: preludes", () => {
  it("runs a registered prelude before the code, afresh for each evaluation", async () => {
    // Prepare
    pool.registerPrelude("greeter", "var calls = 0; function greet(name) { calls += 1; return 'hello ' + name + ' #' + calls; }");

    // Act
    const first = await pool.evaluate({ code: "greet(who)", prelude: "greeter", globals: { who: "ada" } });
    const second = await pool.evaluate({ code: "greet(who)", prelude: "greeter", globals: { who: "bob" } });

    // Assess
    expect(first).toBe("hello ada #1");
    expect(second).toBe("hello bob #1");
  });

  it("rejects an unknown prelude and a conflicting re-registration", async () => {
    // Prepare
    pool.registerPrelude("fixed", "var x = 1;");

    // Act
    const unknown = await failureOf(pool.evaluate({ code: "1", prelude: "missing" }));

    // Assess
    expect(unknown.error).toBeInstanceOf(SandboxUnavailable);
    expect(() => pool.registerPrelude("fixed", "var x = 2;")).toThrow(TypeError);
    expect(() => pool.registerPrelude("fixed", "var x = 1;")).not.toThrow();
  });
});

describe("SandboxPool: guest errors", () => {
  it("reports a guest exception with its name, message and line, without host paths", async () => {
    // Act
    const { error } = await failureOf(pool.evaluate({ code: "const a = 1;\nconst b = 2;\nthrow new TypeError('boom ' + (a + b));" }));

    // Assess
    expect(error).toBeInstanceOf(SandboxError);
    const sandboxError = error as SandboxError;
    expect(sandboxError.message).toBe("boom 3");
    expect(sandboxError.guestErrorName).toBe("TypeError");
    expect(sandboxError.line).toBe(3);
    expect(sandboxError.message).not.toMatch(/node_modules|\/work\/|\.mjs/);
  });

  it("reports a syntax error as a SandboxError", async () => {
    // Act
    const { error } = await failureOf(pool.evaluate({ code: "let x = ;" }));

    // Assess
    expect(error).toBeInstanceOf(SandboxError);
    expect((error as SandboxError).guestErrorName).toBe("SyntaxError");
  });

  it("reports a thrown non-error value", async () => {
    // Act
    const { error } = await failureOf(pool.evaluate({ code: "throw 'plain text'" }));

    // Assess
    expect(error).toBeInstanceOf(SandboxError);
    expect((error as SandboxError).message).toBe("plain text");
  });

  it("rejects globals that are not JSON data before reaching a worker", async () => {
    // Act
    const { error } = await failureOf(pool.evaluate({ code: "1", globals: { big: 1n } }));

    // Assess
    expect(error).toBeInstanceOf(SandboxUnavailable);
  });
});

describe("SandboxPool: limits (SECURITY.md regressions)", () => {
  it("interrupts an infinite loop at its deadline and keeps serving", async () => {
    // Act
    const { error, elapsedMs } = await failureOf(pool.evaluate({ code: "for (;;) {}", ...BUDGET }));

    // Assess
    expect(error).toBeInstanceOf(SandboxTimeout);
    expect((error as SandboxTimeout).killed).toBe(false);
    expect(elapsedMs).toBeLessThan(TERMINATES_WITHIN_MS);
    await assertStillServing();
  });

  it("terminates a worker stuck in a built-in that never polls the interrupt handler, and replaces it", async () => {
    // Act
    const { error, elapsedMs } = await failureOf(
      pool.evaluate({ code: "Array.prototype.indexOf.call({ length: 2 ** 32 - 1 }, 0)", ...BUDGET }),
    );

    // Assess
    expect(error).toBeInstanceOf(SandboxTimeout);
    expect((error as SandboxTimeout).killed).toBe(true);
    expect(elapsedMs).toBeLessThan(TERMINATES_WITHIN_MS);
    await assertStillServing();
  });

  it.each([
    [
      "many small objects (QuickJS memory limit)",
      "const items = []; for (;;) items.push({ n: items.length, s: 'abcdefgh' + items.length });",
    ],
    ["large buffers (worker memory cap)", "const buffers = []; for (;;) buffers.push(new ArrayBuffer(1 << 20));"],
    ["one huge allocation", "new ArrayBuffer(1 << 30)"],
  ])("stops a memory bomb of %s and keeps serving", async (_, code) => {
    // Act
    const { error, elapsedMs } = await failureOf(pool.evaluate({ code, timeoutMs: 5_000, memoryBytes: 8 * 1024 * 1024 }));

    // Assess
    expect(error).toBeInstanceOf(SandboxMemoryExceeded);
    expect(elapsedMs).toBeLessThan(TERMINATES_WITHIN_MS);
    await assertStillServing();
  });

  it("turns deep recursion into a clean guest error", async () => {
    // Act
    const { error } = await failureOf(pool.evaluate({ code: "function down(n) { return down(n + 1) + 1; } down(0)", ...BUDGET }));

    // Assess
    expect(error).toBeInstanceOf(SandboxError);
    expect((error as SandboxError).message).toMatch(/stack overflow/i);
    await assertStillServing();
  });

  it("turns parser nesting into a clean guest error", async () => {
    // Act
    const { error } = await failureOf(pool.evaluate({ code: 'eval("[".repeat(1e5))', ...BUDGET }));

    // Assess
    expect(error).toBeInstanceOf(SandboxError);
    await assertStillServing();
  });

  it("caps a huge result before it is copied out", async () => {
    // Act
    const { error } = await failureOf(pool.evaluate({ code: "'x'.repeat(2e6)", ...BUDGET, maxOutputBytes: 64 * 1024 }));

    // Assess
    expect(error).toBeInstanceOf(SandboxOutputTooLarge);
    await assertStillServing();
  });

  it("caps the output even when the guest replaces JSON.stringify or hides the size in toJSON", async () => {
    // Act
    const replaced = await failureOf(
      pool.evaluate({ code: "JSON.stringify = () => '1'; 'x'.repeat(1e5)", ...BUDGET, maxOutputBytes: 1024 }),
    );
    const hidden = await failureOf(pool.evaluate({ code: "({ toJSON() { return 'y'.repeat(1e5); } })", ...BUDGET, maxOutputBytes: 1024 }));

    // Assess
    expect(replaced.error).toBeInstanceOf(SandboxOutputTooLarge);
    expect(hidden.error).toBeInstanceOf(SandboxOutputTooLarge);
  });

  it("counts output bytes, not characters", async () => {
    // Act
    const { error } = await failureOf(pool.evaluate({ code: "'€'.repeat(500)", ...BUDGET, maxOutputBytes: 1024 }));

    // Assess
    expect(error).toBeInstanceOf(SandboxOutputTooLarge);
  });

  it("keeps the deadline armed while the result is copied out (guest getters run under it)", async () => {
    // Act
    const { error, elapsedMs } = await failureOf(pool.evaluate({ code: "({ get trap() { for (;;) {} } })", ...BUDGET }));

    // Assess
    expect(error).toBeInstanceOf(SandboxTimeout);
    expect(elapsedMs).toBeLessThan(TERMINATES_WITHIN_MS);
    await assertStillServing();
  });
});

describe("SandboxPool: lifecycle", () => {
  it("fails fast with SandboxUnavailable when workers cannot start", async () => {
    // Prepare
    const broken = new SandboxPool({ size: 1, workerUrl: new URL("./no-such-worker.mjs", import.meta.url) });

    // Act
    const evaluation = await failureOf(broken.evaluate({ code: "1" }));
    const warming = await failureOf(broken.warmUp());
    await broken.close();

    // Assess
    expect(evaluation.error).toBeInstanceOf(SandboxUnavailable);
    expect(warming.error).toBeInstanceOf(SandboxUnavailable);
  });

  it("rejects evaluations after close", async () => {
    // Prepare
    const closing = new SandboxPool({ size: 1 });
    await closing.evaluate({ code: "1" });

    // Act
    await closing.close();
    const { error } = await failureOf(closing.evaluate({ code: "1" }));

    // Assess
    expect(error).toBeInstanceOf(SandboxUnavailable);
    expect(closing.isClosed).toBe(true);
  });
});
