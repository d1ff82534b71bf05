import { afterAll, describe, expect, it } from "vitest";
import { createLlmPort } from "../../shared/wiring/create-llm-port.js";
import type { LlmCallOptions, LlmPort } from "../../shared/llm/llm-port.js";
import { llmScriptBindings } from "../../shared/llm/llm-script-binding.js";
import { SandboxPool } from "../../shared/sandbox/sandbox-pool.js";
import { runScript } from "../../shared/sandbox/script-runtime.js";

describe("vance.llm.callForJson in a guard script (spec §2a code-guard)", () => {
  const pool = new SandboxPool({ size: 1 });
  afterAll(() => pool.close());

  const GUARD = `
    const res = vance.llm.callForJson("completion-guard", "Evaluate the guard condition.", {
      judge: "Has a development task of the user been completed?",
      task: vance.guard.task,
      output: vance.guard.output,
    });
    if (res && res.fire) {
      vance.guard.continueWith("Was the build run and the specification updated?");
    }
  `;

  const fakeLlm = (answer: unknown): LlmPort & { calls: Array<[string, string, unknown, LlmCallOptions | undefined]> } => {
    const calls: Array<[string, string, unknown, LlmCallOptions | undefined]> = [];
    return {
      calls,
      callForJson: async (name, instruction, input, options) => {
        calls.push([name, instruction, input, options]);
        return answer;
      },
    };
  };

  const runGuard = async (llm: LlmPort): Promise<string[]> => {
    const continued: string[] = [];
    await runScript({
      source: GUARD,
      pool,
      bindings: {
        llm: llmScriptBindings(llm),
        guard: {
          task: "add login",
          output: "Implemented and tested.",
          continueWith: ([text]) => {
            continued.push(String(text));
          },
        },
      },
    });
    return continued;
  };

  it("continues when the model says fire, passing name, instruction, input and the call's signal", async () => {
    // Prepare
    const llm = fakeLlm({ fire: true });

    // Act
    const continued = await runGuard(llm);

    // Assess
    expect(continued).toEqual(["Was the build run and the specification updated?"]);
    expect(llm.calls).toHaveLength(1);
    const [name, instruction, input, options] = llm.calls[0] ?? [];
    expect([name, instruction, input]).toEqual([
      "completion-guard",
      "Evaluate the guard condition.",
      { judge: "Has a development task of the user been completed?", task: "add login", output: "Implemented and tested." },
    ]);
    expect(options?.signal).toBeInstanceOf(AbortSignal);
  });

  it("fails open when no endpoint is configured: null answer, no continuation", async () => {
    // Act
    const continued = await runGuard(createLlmPort({}));

    // Assess
    expect(continued).toEqual([]);
  });

  it("rejects a call without a usable name or instruction with a message the script can read", async () => {
    // Prepare
    const llm = fakeLlm({});

    // Act
    const outcome = await runScript({
      source:
        "[ [1, 'x'], ['', 'x'], ['n', ' '] ].map(([n, i]) => { try { vance.llm.callForJson(n, i, {}); return 'called'; } catch (e) { return e.code; } })",
      pool,
      bindings: { llm: llmScriptBindings(llm) },
    });

    // Assess
    expect(outcome.result).toEqual(["INVALID_REQUEST", "INVALID_REQUEST", "INVALID_REQUEST"]);
    expect(llm.calls).toEqual([]);
  });
});
