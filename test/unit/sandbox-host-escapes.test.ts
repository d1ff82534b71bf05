import { afterAll, describe, expect, it } from "vitest";
import type { HostFunction } from "../../shared/sandbox/host-call.js";
import { SandboxPool } from "../../shared/sandbox/sandbox-pool.js";
import { ScriptError } from "../../shared/sandbox/script-errors.js";
import { runScript, type ScriptBindings } from "../../shared/sandbox/script-runtime.js";

const pool = new SandboxPool({ size: 2 });
afterAll(() => pool.close());

/** Every call of vance.tool as the host saw it. */
const recordingTool = (): { tool: HostFunction; calls: unknown[][] } => {
  const calls: unknown[][] = [];
  return {
    calls,
    tool: (args) => {
      calls.push(args);
      return { ok: true };
    },
  };
};

const bindingsWith = (tool: HostFunction): ScriptBindings => ({ tool, workspace: { read: () => "text" }, guard: { task: "t" } });

const resultOf = async (source: string, bindings: ScriptBindings = bindingsWith(() => null)): Promise<unknown> =>
  (await runScript({ source, bindings, pool, limits: { timeoutMs: 2_000 } })).result;

const failureOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the script to fail");
};

describe("escape attempts through the vance bindings", () => {
  it.each([
    ["require", "typeof require"],
    ["process", "typeof process"],
    ["module", "typeof module"],
    ["globalThis.process", "typeof globalThis.process"],
    ["globalThis.constructor", "globalThis.constructor.constructor('return typeof process')()"],
    ["Function", "Function('return typeof process')()"],
    ["eval", "eval('typeof process')"],
    ["indirect eval", "(0, eval)('typeof this.process')"],
    ["a host function's constructor", "vance.tool.constructor('return typeof process')()"],
    ["vance's constructor", "vance.constructor.constructor('return typeof require')()"],
    ["a bridge function's prototype chain", "Object.getPrototypeOf(vance.workspace.read).constructor('return typeof process')()"],
  ])("finds no host through %s", async (_, expression) => {
    // Act
    const result = await resultOf(expression);

    // Assess
    expect(result).toBe("undefined");
  });

  it("cannot load modules with import()", async () => {
    // Act
    const error = await failureOf(runScript({ source: "import('node:fs').then((fs) => typeof fs.readFileSync)", pool }));

    // Assess
    expect(error).toBeInstanceOf(ScriptError);
  });

  it("exposes only JSON data and guest closures: no host object, no raw bridge function in globals", async () => {
    // Act
    const result = await resultOf(
      "const names = Object.getOwnPropertyNames(globalThis).filter((n) => !['Object','Function','Array','Number','parseFloat','parseInt','Infinity','NaN','undefined','Boolean','String','Symbol','Date','Promise','RegExp','Error','AggregateError','EvalError','RangeError','ReferenceError','SyntaxError','TypeError','URIError','globalThis','Math','JSON','Reflect','Proxy','Map','Set','WeakMap','WeakSet','WeakRef','FinalizationRegistry','ArrayBuffer','SharedArrayBuffer','Atomics','DataView','Uint8ClampedArray','Int8Array','Uint8Array','Int16Array','Uint16Array','Int32Array','Uint32Array','BigInt64Array','BigUint64Array','Float32Array','Float64Array','BigInt','escape','unescape','eval','isFinite','isNaN','decodeURI','decodeURIComponent','encodeURI','encodeURIComponent','InternalError','Iterator','Float16Array','performance'].includes(n)); [names.sort(), Object.keys(vance).sort(), vance.tool.toString().includes('native code')]",
    );

    // Assess
    expect(result).toEqual([["args", "vance"], ["guard", "log", "tool", "workspace"], false]);
  });
});

describe("prototype pollution stays in the guest", () => {
  it("pollution of Object.prototype, vance and its functions never reaches host data or host prototypes", async () => {
    // Prepare
    const { tool, calls } = recordingTool();

    // Act
    const result = await resultOf(
      [
        "Object.prototype.polluted = 'guest';",
        "vance.__proto__.viaVance = 'guest';",
        "vance.tool.__proto__.viaFunction = 'guest';",
        "vance.tool.constructor.prototype.call = function () { return 'hijacked'; };",
        "Array.prototype.toJSON = function () { return 'hijacked array'; };",
        "const reply = vance.tool('run', { plain: 1 });",
        "({ ok: reply.ok, replyPolluted: reply.polluted, guestPolluted: ({}).polluted })",
      ].join("\n"),
      bindingsWith(tool),
    );

    // Assess
    expect(result).toEqual({ ok: true, replyPolluted: "guest", guestPolluted: "guest" });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toEqual(["run", { plain: 1 }]);
    expect(Object.getPrototypeOf(calls[0]?.[1])).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).viaVance).toBeUndefined();
    expect((Function.prototype as unknown as Record<string, unknown>).viaFunction).toBeUndefined();
  });

  it("smuggles no __proto__ key to the host, even when the host merges the arguments", async () => {
    // Prepare
    const { tool, calls } = recordingTool();

    // Act
    await resultOf(
      'vance.tool(\'run\', JSON.parse(\'{"__proto__": {"isAdmin": true}, "constructor": {"prototype": {"x": 1}}}\'))',
      bindingsWith(tool),
    );

    // Assess
    const merged = Object.assign({}, calls[0]?.[1]) as { isAdmin?: unknown };
    expect(merged.isAdmin).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it("keeps the bridge working when the guest replaces JSON, Function.prototype.call or String methods", async () => {
    // Prepare
    const { tool, calls } = recordingTool();

    // Act
    const result = await resultOf(
      [
        "JSON.stringify = () => '\"forged\"'; JSON.parse = () => ({ forged: true });",
        "Function.prototype.call = function () { throw new Error('hijacked'); };",
        "String.prototype.substring = () => 'forged'; String.prototype.slice = () => 'forged';",
        "vance.tool('run', { n: 1 })",
      ].join("\n"),
      bindingsWith(tool),
    );

    // Assess
    expect(result).toEqual({ ok: true });
    expect(calls).toEqual([["run", { n: 1 }]]);
  });

  it("replacing vance.tool in the guest changes nothing on the host, and the next script starts clean", async () => {
    // Prepare
    const { tool, calls } = recordingTool();

    // Act
    const first = await resultOf("vance.tool = () => 'replaced'; Object.prototype.leftover = 1; vance.tool('x')", bindingsWith(tool));
    const second = await resultOf("[typeof vance.tool('y'), 'leftover' in {}]", bindingsWith(tool));

    // Assess
    expect(first).toBe("replaced");
    expect(second).toEqual(["object", false]);
    expect(calls).toEqual([["y"]]);
  });
});
