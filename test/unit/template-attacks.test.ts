import { afterAll, describe, expect, it } from "vitest";
import { SandboxPool } from "../../shared/sandbox/sandbox-pool.js";
import { createTemplateRenderer } from "../../shared/templates/sandboxed-template-renderer.js";
import { TemplateError, TemplateLimitExceeded } from "../../shared/templates/template-errors.js";
import type { RenderContext } from "../../shared/templates/template-renderer.js";

/**
 * The template attacks of SECURITY.md. Each SSTI payload tries to reach the guest's Function
 * constructor and make it return a marker: getting "PWNED" back would mean the second layer
 * (the hardened nunjucks runtime) failed; the first layer (QuickJS) has no host to reach anyway,
 * which the last tests prove without the second layer.
 */
const pool = new SandboxPool({ size: 2 });
afterAll(() => pool.close());

const renderer = createTemplateRenderer({ pool, timeoutMs: 5_000 });
const bounded = createTemplateRenderer({ pool, timeoutMs: 250, memoryBytes: 8 * 1024 * 1024, maxOutputBytes: 64 * 1024 });
const TERMINATES_WITHIN_MS = 10_000;

const context: RenderContext = { tier: "small", params: { n: 1 }, args: { text: "hi", words: ["hi"] } };

const outcomeOf = async (template: string, using = renderer): Promise<{ output?: string; error?: unknown }> => {
  try {
    return { output: await using.render(template, context) };
  } catch (error) {
    return { error };
  }
};

const PAYLOAD = "(\"return 'PWNED'\")()";

describe("template attacks: escapes through constructors (SECURITY.md)", () => {
  it.each([
    ["range.constructor", `{{ range.constructor${PAYLOAD} }}`],
    ["cycler", `{{ cycler.constructor${PAYLOAD} }}`],
    ["cycler instance", `{{ cycler(1, 2).next.constructor${PAYLOAD} }}`],
    ["joiner", `{{ joiner().constructor${PAYLOAD} }}`],
    ["macro", `{% macro m() %}x{% endmacro %}{{ m.constructor${PAYLOAD} }}`],
    ["loop", `{% for i in [1] %}{{ loop.constructor.constructor${PAYLOAD} }}{% endfor %}`],
    ["caller", `{% macro m() %}{{ caller.constructor${PAYLOAD} }}{% endmacro %}{% call m() %}x{% endcall %}`],
    ["string constructor chain", `{{ "".constructor.constructor${PAYLOAD} }}`],
    ["argument value", `{{ args.text.constructor.constructor${PAYLOAD} }}`],
    ["filter result", `{{ (args.words | first).constructor.constructor${PAYLOAD} }}`],
    ["filter named constructor", `{{ "return 'PWNED'" | constructor }}`],
    ["test named constructor", "{{ 'PWNED' if range is constructor }}"],
    ["computed key by concatenation", `{{ range["constr" ~ "uctor"]${PAYLOAD} }}`],
    ["computed key by array", `{{ range[["constructor"]]${PAYLOAD} }}`],
    ["computed key from a variable", `{% set k = "constructor" %}{{ range[k]${PAYLOAD} }}`],
    ["__proto__", `{{ range.__proto__.constructor${PAYLOAD} }}`],
    ["prototype", `{{ range.prototype.constructor${PAYLOAD} }}`],
    ["__lookupGetter__", `{{ args.__lookupGetter__("__proto__").call(args).constructor${PAYLOAD} }}`],
    ["set then call", `{% set f = range.constructor %}{{ f${PAYLOAD} }}`],
    ["bare constructor", `{{ constructor${PAYLOAD} }}`],
    ["bare __proto__", `{{ __proto__.constructor${PAYLOAD} }}`],
  ])("blocks %s", async (_, template) => {
    // Act
    const { output, error } = await outcomeOf(template);

    // Assess
    if (error !== undefined) expect(error).toBeInstanceOf(TemplateError);
    expect(output ?? "").not.toContain("PWNED");
  });

  it("resolves a bare {{ constructor }} to nothing, not to Object", async () => {
    // Act
    const { output } = await outcomeOf("[{{ constructor }}|{{ __proto__ }}|{{ toString }}|{{ hasOwnProperty }}]");

    // Assess
    expect(output).toBe("[|||]");
  });

  it("cannot pollute Object.prototype, neither on the host nor for the next render", async () => {
    // Act
    const attack = await outcomeOf("{{ constructor.assign(constructor.getPrototypeOf(args), {polluted: 1}) }}");
    const viaSet = await outcomeOf("{% set __proto__ = {polluted: 1} %}{{ polluted }}");
    const next = await outcomeOf("[{{ args.polluted }}{{ params.polluted }}]");

    // Assess
    expect(attack.error ?? attack.output).toBeDefined();
    expect(viaSet.output).toBe("");
    expect(next.output).toBe("[]");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  });

  it("has no host process even when the guest reaches Function directly (first layer alone)", async () => {
    // Act
    const result = await pool.evaluate({
      code: "[typeof process, typeof require, (function () {}).constructor('return typeof process')()]",
    });

    // Assess
    expect(result).toEqual(["undefined", "undefined", "undefined"]);
  });
});

describe("template attacks: resource bombs", () => {
  it.each([
    ["a huge range loop", "{% for i in range(0, 100000000) %}{% endfor %}"],
    ["a center-filter blow-up", '{{ "x" | center(100000000) }}'],
    [
      "nested loops",
      "{% for a in range(0, 1000) %}{% for b in range(0, 1000) %}{% for c in range(0, 1000) %}{% endfor %}{% endfor %}{% endfor %}",
    ],
    ["a catastrophic regex", '{{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!" | replace(r/(a+)+$/, "x") }}'],
    ["unbounded macro recursion", "{% macro m(n) %}{{ m(n + 1) }}{% endmacro %}{{ m(0) }}"],
    ["macro output doubling", "{% macro m(n) %}{% if n < 40 %}{{ m(n + 1) }}{{ m(n + 1) }}{% else %}x{% endif %}{% endmacro %}{{ m(0) }}"],
  ])("cuts off %s with TemplateLimitExceeded", async (_, template) => {
    // Prepare
    const started = performance.now();

    // Act
    const { error } = await outcomeOf(template, bounded);

    // Assess
    expect(error).toBeInstanceOf(TemplateLimitExceeded);
    expect(["time", "memory"]).toContain((error as TemplateLimitExceeded).limit);
    expect(performance.now() - started).toBeLessThan(TERMINATES_WITHIN_MS);
  });

  it("caps a huge output", async () => {
    // Act
    const { error } = await outcomeOf("{% for i in range(0, 5000) %}0123456789abcdefghijklmnopqrstuvwxyz{% endfor %}", bounded);

    // Assess
    expect(error).toBeInstanceOf(TemplateLimitExceeded);
    expect((error as TemplateLimitExceeded).limit).toBe("output");
  });

  it("keeps rendering correctly after every bomb", async () => {
    // Act
    const outputs = await Promise.all(["a", "b", "c", "d"].map((x) => bounded.render(`{{ "${x}" | upper }}{{ params.n }}`, context)));

    // Assess
    expect(outputs).toEqual(["A1", "B1", "C1", "D1"]);
  });
});
