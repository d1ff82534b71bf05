import { afterAll, describe, expect, it } from "vitest";
import type { HostFunction } from "../../shared/sandbox/host-call.js";
import { SandboxAborted, SandboxTimeout } from "../../shared/sandbox/sandbox-errors.js";
import { SandboxPool } from "../../shared/sandbox/sandbox-pool.js";

// Generous upper bounds only prove "terminates".
const TERMINATES_WITHIN_MS = 10_000;

const pool = new SandboxPool({ size: 2, timeoutMs: 15_000 });
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

const assertStillServing = async (target: SandboxPool = pool): Promise<void> => {
  const results = await Promise.all(
    [1, 2, 3].map((n) =>
      target.evaluate({ code: "vance.twice(n)", globals: { n }, hostFunctions: { "vance.twice": ([x]) => (x as number) * 2 } }),
    ),
  );
  expect(results).toEqual([2, 4, 6]);
};

const never: HostFunction = () => new Promise(() => undefined);

describe("host calls: deadlines", () => {
  it("times out an evaluation whose host call never returns, aborts the call, and keeps serving", async () => {
    // Prepare
    let signal: AbortSignal | undefined;
    const hang: HostFunction = (_args, call) => {
      signal = call.signal;
      return never([], call);
    };

    // Act
    const { error, elapsedMs } = await failureOf(
      pool.evaluate({ code: "vance.hang()", hostFunctions: { "vance.hang": hang }, timeoutMs: 300 }),
    );

    // Assess
    expect(error).toBeInstanceOf(SandboxTimeout);
    expect(elapsedMs).toBeLessThan(TERMINATES_WITHIN_MS);
    expect(signal?.aborted).toBe(true);
    await assertStillServing();
  });

  it("ends a single slow host call at its own timeout; the guest can catch that and go on", async () => {
    // Prepare
    let aborted = false;
    const slow: HostFunction = (_args, call) =>
      new Promise((resolve) => {
        call.signal.addEventListener("abort", () => {
          aborted = true;
          resolve("too late");
        });
      });

    // Act
    const result = await pool.evaluate({
      code: "let seen; try { vance.slow() } catch (e) { seen = [e.name, e.code] } [seen, vance.fast()]",
      hostFunctions: { "vance.slow": slow, "vance.fast": () => "fast" },
      hostCallTimeoutMs: 100,
      timeoutMs: 5_000,
    });

    // Assess
    expect(result).toEqual([["HostError", "HOST_CALL_TIMEOUT"], "fast"]);
    expect(aborted).toBe(true);
  });

  it("does not let a guest swallow the deadline: catching the HostError still ends in SandboxTimeout", async () => {
    // Act
    const caughtAndReturned = await failureOf(
      pool.evaluate({ code: "try { vance.hang() } catch (e) {} 'escaped'", hostFunctions: { "vance.hang": never }, timeoutMs: 300 }),
    );
    const caughtAndLooped = await failureOf(
      pool.evaluate({ code: "for (;;) { try { vance.hang() } catch (e) {} }", hostFunctions: { "vance.hang": never }, timeoutMs: 300 }),
    );

    // Assess
    expect(caughtAndReturned.error).toBeInstanceOf(SandboxTimeout);
    expect(caughtAndLooped.error).toBeInstanceOf(SandboxTimeout);
    expect(caughtAndLooped.elapsedMs).toBeLessThan(TERMINATES_WITHIN_MS);
    await assertStillServing();
  });

  it("counts host time against the deadline: many quick calls cannot extend it", async () => {
    // Prepare
    const slowish: HostFunction = () => new Promise((resolve) => setTimeout(() => resolve(1), 20));

    // Act
    const { error } = await failureOf(
      pool.evaluate({ code: "for (;;) vance.wait()", hostFunctions: { "vance.wait": slowish }, timeoutMs: 300 }),
    );

    // Assess
    expect(error).toBeInstanceOf(SandboxTimeout);
  });

  it("serves concurrent evaluations with host calls without crossing replies", async () => {
    // Prepare
    const echo: HostFunction = async ([value]) => {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
      return value;
    };
    const code = "let ok = true; for (let i = 0; i < 50; i++) { if (vance.echo(tag + ':' + i) !== tag + ':' + i) ok = false; } ok";

    // Act
    const results = await Promise.all(
      ["a", "b", "c", "d"].map((tag) => pool.evaluate({ code, globals: { tag }, hostFunctions: { "vance.echo": echo } })),
    );

    // Assess
    expect(results).toEqual([true, true, true, true]);
  });
});

describe("host calls: no leaks", () => {
  const loop = (calls: number): string =>
    `let total = 0; for (let i = 0; i < ${calls}; i++) { const r = vance.echo({ i, text: 'row ' + i }); total += r.i; } total`;
  const echo: HostFunction = ([value]) => value;
  const counters = ["malloc_count", "memory_used_count", "obj_count", "str_count", "array_count", "js_func_count"];

  it("keeps QuickJS memory flat over thousands of host calls in one evaluation", async () => {
    // Act
    const few = await pool.evaluateWithStats({ code: loop(10), hostFunctions: { "vance.echo": echo } });
    const many = await pool.evaluateWithStats({ code: loop(3_000), hostFunctions: { "vance.echo": echo } });

    // Assess
    expect(many.value).toBe((3_000 * 2_999) / 2);
    expect(many.stats.hostCalls).toBe(3_000);
    for (const counter of counters) {
      // Each leaked handle would add one per call; allow for nothing but noise.
      expect(
        Math.abs((many.stats.quickjs?.[counter] ?? Number.NaN) - (few.stats.quickjs?.[counter] ?? Number.NaN)),
        counter,
      ).toBeLessThanOrEqual(5);
    }
  });

  it("keeps the worker's wasm memory and QuickJS counters flat across evaluations", async () => {
    // Prepare
    const single = new SandboxPool({ size: 1, timeoutMs: 15_000 });

    // Act
    const runs = [];
    for (let n = 0; n < 6; n++) runs.push(await single.evaluateWithStats({ code: loop(1_000), hostFunctions: { "vance.echo": echo } }));
    await single.close();

    // Assess
    const [first, ...rest] = runs;
    for (const run of rest) {
      expect(run.stats.wasmMemoryBytes).toBe(first?.stats.wasmMemoryBytes);
      expect(run.stats.quickjs).toEqual(first?.stats.quickjs);
    }
  });
});

describe("host calls: re-entrancy", () => {
  it("runs nested evaluations from inside host calls on a one-worker pool without deadlock, threading the depth", async () => {
    // Prepare
    const nestedPool = new SandboxPool({ size: 1, timeoutMs: 15_000 });
    const depths: number[] = [];
    const nested: HostFunction = async ([level], call) => {
      depths.push(call.depth);
      if ((level as number) <= 0) return "bottom";
      return nestedPool.evaluate({
        code: "'level ' + level + ' > ' + vance.nested(level - 1)",
        globals: { level },
        hostFunctions: { "vance.nested": nested },
        depth: call.depth + 1,
        signal: call.signal,
      });
    };

    // Act
    const result = await nestedPool.evaluate({ code: "vance.nested(3)", hostFunctions: { "vance.nested": nested } });
    await assertStillServing(nestedPool);
    await nestedPool.close();

    // Assess
    expect(result).toBe("level 3 > level 2 > level 1 > bottom");
    expect(depths).toEqual([0, 1, 2, 3]);
  });

  it("bounds nesting beyond maxWorkers by the caller's deadline instead of hanging, then serves again", async () => {
    // Prepare
    const tight = new SandboxPool({ size: 1, maxWorkers: 1, timeoutMs: 15_000 });
    const nested: HostFunction = (_args, call) => tight.evaluate({ code: "'inner'", depth: call.depth + 1, signal: call.signal });

    // Act
    const { error, elapsedMs } = await failureOf(
      tight.evaluate({ code: "vance.nested()", hostFunctions: { "vance.nested": nested }, timeoutMs: 400 }),
    );
    const after = await tight.evaluate({ code: "'served'" });
    await tight.close();

    // Assess
    expect(error).toBeInstanceOf(SandboxTimeout);
    expect(elapsedMs).toBeLessThan(TERMINATES_WITHIN_MS);
    expect(after).toBe("served");
  });
});

describe("evaluation signal", () => {
  it("rejects a queued or running evaluation when its signal aborts, and keeps serving", async () => {
    // Prepare
    const single = new SandboxPool({ size: 1, maxWorkers: 1, timeoutMs: 15_000 });
    await single.warmUp();
    const running = new AbortController();
    const queued = new AbortController();

    // Act
    const first = failureOf(single.evaluate({ code: "for (;;) {}", signal: running.signal }));
    const second = failureOf(single.evaluate({ code: "1", signal: queued.signal }));
    queued.abort();
    setTimeout(() => running.abort(), 100);
    const [runningOutcome, queuedOutcome] = await Promise.all([first, second]);
    const already = await failureOf(single.evaluate({ code: "1", signal: AbortSignal.abort() }));
    const after = await single.evaluate({ code: "'served'" });
    await single.close();

    // Assess
    expect(runningOutcome.error).toBeInstanceOf(SandboxAborted);
    expect(runningOutcome.elapsedMs).toBeLessThan(TERMINATES_WITHIN_MS);
    expect(queuedOutcome.error).toBeInstanceOf(SandboxAborted);
    expect(already.error).toBeInstanceOf(SandboxAborted);
    expect(after).toBe("served");
  });
});
