import { describe, expect, it } from "vitest";
import { TemplateLimitExceeded, TemplateSyntaxError } from "../../shared/templates/template-errors.js";
import { precompileTemplate } from "../../shared/templates/template-precompiler.js";

const failureOf = async (run: () => Promise<unknown>): Promise<unknown> => {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected precompiling to fail");
};

describe("precompileTemplate: host side is parsing only", () => {
  it("compiles hostile templates without executing anything on the host", async () => {
    // Prepare
    const marker = globalThis as { __hostTouched?: unknown };
    const hostile = [
      '{{ range.constructor("globalThis.__hostTouched = 1")() }}',
      "{{ constructor.assign(constructor.getPrototypeOf(args), {polluted: 1}) }}",
      "{% set __proto__ = 1 %}{% set constructor = 2 %}{% macro __proto__() %}{% endmacro %}{% for __proto__ in x %}{% endfor %}",
      '{{ r/(a+)+$/.test("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!") }}',
      '{{ "\\u0000" }}{{ "`${globalThis.__hostTouched = 2}`" }}',
    ];

    // Act
    const compiled = await Promise.all(hostile.map((template) => precompileTemplate(template)));

    // Assess
    expect(compiled.every((code) => code.includes("function root("))).toBe(true);
    expect(marker.__hostTouched).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  });

  it("reports a syntax error with a clean message and the line", async () => {
    // Act
    const error = await failureOf(() => precompileTemplate("first\nsecond\n{% for %}"));

    // Assess
    expect(error).toBeInstanceOf(TemplateSyntaxError);
    expect((error as TemplateSyntaxError).message).toBe("unexpected token: %}");
    expect((error as TemplateSyntaxError).line).toBe(3);
  });

  it("reports an unknown tag as a syntax error", async () => {
    // Act
    const error = await failureOf(() => precompileTemplate("{% endif %}"));

    // Assess
    expect(error).toBeInstanceOf(TemplateSyntaxError);
    expect((error as TemplateSyntaxError).message).toBe("unknown block tag: endif");
  });
});

describe("precompileTemplate: bounds", () => {
  it.each([
    ["too many characters", `{{ a }}${"x".repeat(70_000)}`, {}],
    ["too many tags", "{{ a }}".repeat(1_001), {}],
    ["blocks nested too deep", `${"{% if a %}".repeat(33)}x${"{% endif %}".repeat(33)}`, {}],
    ["a smaller configured size", "{{ a }} and some text", { maxTemplateChars: 10 }],
  ])("rejects %s with TemplateLimitExceeded('size')", async (_, template, options) => {
    // Act
    const error = await failureOf(() => precompileTemplate(template, options));

    // Assess
    expect(error).toBeInstanceOf(TemplateLimitExceeded);
    expect((error as TemplateLimitExceeded).limit).toBe("size");
  });

  it("turns expression nesting past the host stack into TemplateLimitExceeded", async () => {
    // Act
    const error = await failureOf(() => precompileTemplate(`{{ ${"(".repeat(30_000)}1${")".repeat(30_000)} }}`));

    // Assess
    expect(error).toBeInstanceOf(TemplateLimitExceeded);
  });

  it("accepts nesting and tag counts up to the bounds", async () => {
    // Act
    const code = await precompileTemplate(`${"{% if a %}".repeat(32)}x${"{% endif %}".repeat(32)}`);

    // Assess
    expect(code).toContain("function root(");
  });
});
