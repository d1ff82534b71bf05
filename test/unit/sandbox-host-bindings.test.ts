import { afterAll, describe, expect, it } from "vitest";
import { InvalidRequest } from "../../shared/errors.js";
import type { HostCallContext, HostFunction } from "../../shared/sandbox/host-call.js";
import { SandboxError, SandboxUnavailable } from "../../shared/sandbox/sandbox-errors.js";
import { SandboxPool } from "../../shared/sandbox/sandbox-pool.js";

const pool = new SandboxPool({ size: 2, timeoutMs: 10_000 });
afterAll(() => pool.close());

const failureOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the evaluation to fail");
};

/** Runs `code` and returns what a guest `catch` saw of the host call's failure. */
const guestCatch = (call: string, hostFunctions: Record<string, HostFunction>, limits: Record<string, number> = {}): Promise<unknown> =>
  pool.evaluate({
    code: `try { ${call}; "no error" } catch (e) { ({ name: e.name, code: e.code, message: e.message, isError: e instanceof Error, stack: String(e.stack) }) }`,
    hostFunctions,
    ...limits,
  });

describe("host bindings: synchronous-looking calls", () => {
  it("returns host data to the guest synchronously, from sync and async host functions", async () => {
    // Prepare
    const hostFunctions: Record<string, HostFunction> = {
      "vance.tool": ([name, params]) => ({ tool: name, params }),
      "vance.workspace.read": async ([path]) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return `content of ${String(path)}`;
      },
    };

    // Act
    const result = await pool.evaluate({
      code: "const diff = vance.tool('git_diff', { range: 'HEAD~1' }); const text = vance.workspace.read('reports/a.md'); ({ diff, text, kinds: [typeof vance.tool, typeof vance.workspace] })",
      hostFunctions,
    });

    // Assess
    expect(result).toEqual({
      diff: { tool: "git_diff", params: { range: "HEAD~1" } },
      text: "content of reports/a.md",
      kinds: ["function", "object"],
    });
  });

  it("hands each host function its path, the evaluation depth and a live signal", async () => {
    // Prepare
    const seen: Array<{ path: string; depth: number; aborted: boolean }> = [];
    const record: HostFunction = (_args, call: HostCallContext) => {
      seen.push({ path: call.path, depth: call.depth, aborted: call.signal.aborted });
      return null;
    };

    // Act
    await pool.evaluate({ code: "vance.a(); vance.b.c();", hostFunctions: { "vance.a": record, "vance.b.c": record }, depth: 2 });

    // Assess
    expect(seen).toEqual([
      { path: "vance.a", depth: 2, aborted: false },
      { path: "vance.b.c", depth: 2, aborted: false },
    ]);
  });

  it("adds host functions to a JSON global of the same name without losing its data", async () => {
    // Act
    const result = await pool.evaluate({
      code: "vance.guard.continueWith('again'); [vance.guard.task, typeof vance.guard.continueWith]",
      globals: { vance: { guard: { task: "write tests" } } },
      hostFunctions: { "vance.guard.continueWith": () => undefined },
    });

    // Assess
    expect(result).toEqual(["write tests", "function"]);
  });

  it("keeps the order and results of many calls inside one expression", async () => {
    // Prepare
    const calls: number[] = [];

    // Act
    const result = await pool.evaluate({
      code: "[1, 2, 3, 4, 5].map((n) => vance.square(n)).reduce((a, b) => a + b, 0)",
      hostFunctions: {
        "vance.square": ([n]) => {
          calls.push(n as number);
          return (n as number) ** 2;
        },
      },
    });

    // Assess
    expect(result).toBe(55);
    expect(calls).toEqual([1, 2, 3, 4, 5]);
  });

  it("refuses host paths that are not plain identifiers or that collide", async () => {
    // Act
    const badSegment = await failureOf(pool.evaluate({ code: "1", hostFunctions: { "vance.__proto__.x": () => 1 } }));
    const collision = await failureOf(pool.evaluate({ code: "1", hostFunctions: { "vance.tool": () => 1, "vance.tool.run": () => 1 } }));
    const empty = await failureOf(pool.evaluate({ code: "1", hostFunctions: { "vance..x": () => 1 } }));

    // Assess
    expect(badSegment).toBeInstanceOf(SandboxUnavailable);
    expect(collision).toBeInstanceOf(SandboxUnavailable);
    expect(empty).toBeInstanceOf(SandboxUnavailable);
  });
});

describe("host bindings: JSON-only marshalling", () => {
  it("passes arguments as JSON: functions and undefined drop out, dates become strings, __proto__ keys vanish", async () => {
    // Prepare
    let received: unknown[] = [];

    // Act
    await pool.evaluate({
      code: 'vance.take({ fn: () => 1, none: undefined, when: new Date(0), nested: [1, undefined, () => 2] }, JSON.parse(\'{"__proto__": {"admin": true}, "ok": 1}\'))',
      hostFunctions: {
        "vance.take": (args) => {
          received = args;
        },
      },
    });

    // Assess
    expect(received[0]).toEqual({ when: "1970-01-01T00:00:00.000Z", nested: [1, null, null] });
    expect(received[1]).toEqual({ ok: 1 });
    expect(Object.hasOwn(received[1] as object, "__proto__")).toBe(false);
    expect((Object.assign({}, received[1]) as { admin?: unknown }).admin).toBeUndefined();
  });

  it("fails arguments JSON cannot carry inside the guest, before any host call", async () => {
    // Prepare
    let calls = 0;
    const take: HostFunction = () => {
      calls += 1;
    };

    // Act
    const cyclic = await guestCatch("const a = {}; a.self = a; vance.take(a)", { "vance.take": take });
    const bigint = await guestCatch("vance.take(1n)", { "vance.take": take });

    // Assess
    expect(cyclic).toMatchObject({ name: "TypeError", isError: true });
    expect(bigint).toMatchObject({ name: "TypeError", isError: true });
    expect(calls).toBe(0);
  });

  it("returns host values as JSON copies: class instances lose methods, undefined stays undefined", async () => {
    // Prepare
    class Record {
      constructor(readonly id: number) {}
      secret(): string {
        return "host method";
      }
    }

    // Act
    const result = await pool.evaluate({
      code: "const r = vance.get(); const u = vance.nothing(); [r, typeof r.secret, Object.getPrototypeOf(r) === Object.prototype, u === undefined]",
      hostFunctions: { "vance.get": () => new Record(7), "vance.nothing": () => undefined },
    });

    // Assess
    expect(result).toEqual([{ id: 7 }, "undefined", true, true]);
  });

  it("turns a host result JSON cannot carry into a guest error", async () => {
    // Act
    const seen = await guestCatch("vance.get()", { "vance.get": () => ({ big: 1n }) });

    // Assess
    expect(seen).toMatchObject({
      name: "HostError",
      code: "HOST_CALL_FAILED",
      message: "host call 'vance.get' returned a value that is not JSON data",
    });
  });
});

describe("host bindings: size caps", () => {
  it("caps call arguments by UTF-8 bytes, in the guest and again in the worker", async () => {
    // Prepare
    let calls = 0;
    const take: HostFunction = () => {
      calls += 1;
    };

    // Act
    const ascii = await guestCatch("vance.take('x'.repeat(5000))", { "vance.take": take }, { maxHostArgsBytes: 4096 });
    const multiByte = await guestCatch("vance.take('€'.repeat(2000))", { "vance.take": take }, { maxHostArgsBytes: 4096 });
    const fits = await guestCatch("vance.take('x'.repeat(4000))", { "vance.take": take }, { maxHostArgsBytes: 4096 });

    // Assess
    expect(ascii).toMatchObject({ name: "HostError", code: "HOST_ARGS_TOO_LARGE" });
    expect(multiByte).toMatchObject({ name: "HostError", code: "HOST_ARGS_TOO_LARGE" });
    expect(fits).toBe("no error");
    expect(calls).toBe(1);
  });

  it("caps host results before they reach the guest", async () => {
    // Act
    const tooLarge = await guestCatch("vance.get()", { "vance.get": () => "€".repeat(2000) }, { maxHostResultBytes: 4096 });
    const fits = await pool.evaluate({
      code: "vance.get().length",
      hostFunctions: { "vance.get": () => "x".repeat(4000) },
      maxHostResultBytes: 4096,
    });

    // Assess
    expect(tooLarge).toMatchObject({ name: "HostError", code: "HOST_RESULT_TOO_LARGE" });
    expect(fits).toBe(4000);
  });

  it("caps the number of host calls per evaluation", async () => {
    // Act
    const result = await pool.evaluate({
      code: "let done = 0; try { for (;;) { vance.ping(); done++; } } catch (e) { [done, e.code] }",
      hostFunctions: { "vance.ping": () => 1 },
      maxHostCalls: 25,
    });

    // Assess
    expect(result).toEqual([25, "HOST_CALL_LIMIT"]);
  });
});

describe("host bindings: sanitized host errors", () => {
  it("gives the guest a generic message for ordinary host errors, never their message or stack", async () => {
    // Prepare
    const leaky = new Error("ENOENT: /work/main/secret/credentials.json");
    const reported: Array<[string, unknown]> = [];

    // Act
    const sync = await guestCatch("vance.read()", {
      "vance.read": () => {
        throw leaky;
      },
    });
    const async = await pool.evaluate({
      code: "try { vance.read() } catch (e) { [e.code, e.message, String(e.stack)] }",
      hostFunctions: { "vance.read": () => Promise.reject(leaky) },
      onHostError: (path, error) => reported.push([path, error]),
    });

    // Assess
    expect(sync).toMatchObject({ name: "HostError", code: "HOST_CALL_FAILED", message: "host call 'vance.read' failed", isError: true });
    expect(JSON.stringify(sync)).not.toMatch(/work\/main|credentials|node_modules|\.ts:/);
    expect(JSON.stringify(async)).not.toMatch(/work\/main|credentials|node_modules|\.ts:/);
    expect(reported).toEqual([["vance.read", leaky]]);
  });

  it("passes a typed domain error's message and code through, but not an INTERNAL one", async () => {
    // Act
    const typed = await guestCatch("vance.tool('nope')", {
      "vance.tool": () => {
        throw new InvalidRequest("tool 'nope' is not available");
      },
    });
    const internal = await guestCatch("vance.tool('x')", {
      "vance.tool": () => {
        throw new SandboxUnavailable("sandbox worker could not start: Cannot find module '/var/task/secret.mjs'");
      },
    });

    // Assess
    expect(typed).toMatchObject({ name: "HostError", code: "INVALID_REQUEST", message: "tool 'nope' is not available" });
    expect(internal).toMatchObject({ name: "HostError", code: "HOST_CALL_FAILED", message: "host call 'vance.tool' failed" });
  });

  it("reports an uncaught host error as a guest error at the calling line", async () => {
    // Act
    const error = await failureOf(
      pool.evaluate({
        code: "const a = 1;\nconst b = vance.fail();\nb",
        hostFunctions: {
          "vance.fail": () => {
            throw new Error("/secret");
          },
        },
      }),
    );

    // Assess
    expect(error).toBeInstanceOf(SandboxError);
    expect(error).toMatchObject({ guestErrorName: "HostError", line: 2, message: "host call 'vance.fail' failed" });
  });
});
