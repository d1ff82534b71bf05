import { afterAll, describe, expect, it, vi } from "vitest";
import { SandboxPool } from "../../shared/sandbox/sandbox-pool.js";
import { createTemplateRenderer, type SandboxedTemplateRenderer } from "../../shared/templates/sandboxed-template-renderer.js";
import { TemplateLimitExceeded, TemplateRenderError, TemplateSyntaxError } from "../../shared/templates/template-errors.js";
import type { RenderContext } from "../../shared/templates/template-renderer.js";

const pool = new SandboxPool({ size: 2 });
afterAll(() => pool.close());

// A generous deadline: these tests are about behaviour, not speed.
const newRenderer = (): SandboxedTemplateRenderer => createTemplateRenderer({ pool, timeoutMs: 5_000 });
const renderer = newRenderer();

const context: RenderContext = {
  tier: "small",
  model: "model-a",
  provider: "provider-b",
  mode: "plan",
  recipe: "coding",
  lang: "de",
  params: { depth: 2, focus: ["tests", "naming"] },
  args: { text: "src/main strict", words: ["src/main", "strict"], scope: "src/main" },
};

const failureOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the render to fail");
};

describe("SandboxedTemplateRenderer: rendering", () => {
  it("renders conditions, loops, filters, arguments and params", async () => {
    // Prepare
    const template = [
      "Review {{ args.scope }} ({{ args.words | length }} words: {{ args.words | join(', ') }}).",
      "{% if tier == 'small' %}",
      "Keep it short.",
      "{% else %}",
      "Be thorough.",
      "{% endif %}",
      "{% for item in params.focus %}",
      "- {{ loop.index }}. {{ item | upper }}",
      "{% endfor %}",
      "Depth {{ params.depth + 1 }}, mode {{ mode | default('none') }}, {{ model ~ '@' ~ provider }}.",
    ].join("\n");

    // Act
    const output = await renderer.render(template, context);

    // Assess
    expect(output).toBe(
      [
        "Review src/main (2 words: src/main, strict).",
        "Keep it short.",
        "- 1. TESTS",
        "- 2. NAMING",
        "Depth 3, mode plan, model-a@provider-b.",
      ].join("\n"),
    );
  });

  it("renders undefined variables and members empty (optional arguments stay unset)", async () => {
    // Act
    const output = await renderer.render("[{{ args.missing }}|{{ nothing }}|{{ nothing.deeper.still }}|{{ profile }}]", context);

    // Assess
    expect(output).toBe("[|||]");
  });

  it("does not escape HTML: the output is prompt text", async () => {
    // Act
    const output = await renderer.render("{{ args.text }}", { args: { text: "<b>a & 'b'</b>" } });

    // Assess
    expect(output).toBe("<b>a & 'b'</b>");
  });

  it("supports macros, call blocks, set and raw blocks", async () => {
    // Prepare
    const template =
      "{% macro item(name, mark='*') %}{{ mark }} {{ name }}{% if caller %} {{ caller() }}{% endif %}{% endmacro %}" +
      "{% set who = args.scope %}{{ item(who) }}|{% call item('x', mark='-') %}inner{% endcall %}|{% raw %}{{ not rendered }}{% endraw %}";

    // Act
    const output = await renderer.render(template, context);

    // Assess
    expect(output).toBe("* src/main|- x inner|{{ not rendered }}");
  });

  it("renders argument text literally, never as template source", async () => {
    // Prepare
    const args = { text: "{{ 7*7 }} {% if true %}yes{% endif %}", words: ["{{", "7*7", "}}"] };

    // Act
    const output = await renderer.render("You asked: {{ args.text }} / {{ args.words | join(' ') }}", { args });

    // Assess
    expect(output).toBe("You asked: {{ 7*7 }} {% if true %}yes{% endif %} / {{ 7*7 }}");
  });

  it("returns a body without template syntax unchanged, without touching the sandbox", async () => {
    // Prepare
    const local = newRenderer();
    const evaluate = vi.spyOn(pool, "evaluate");
    const body = "# Plain Markdown\n\nUse { braces } and 100% effort.";

    // Act
    const output = await local.render(body, context);

    // Assess
    expect(output).toBe(body);
    expect(evaluate).not.toHaveBeenCalled();
    evaluate.mockRestore();
  });
});

describe("SandboxedTemplateRenderer: caching", () => {
  it("serves a repeated (template, context) from the cache with the same output", async () => {
    // Prepare
    const local = newRenderer();
    const evaluate = vi.spyOn(pool, "evaluate");
    const template = "Scope {{ args.scope }} at {{ tier }}";

    // Act
    const first = await local.render(template, context);
    const second = await local.render(template, { ...context });
    const other = await local.render(template, { ...context, tier: "large" });

    // Assess
    expect(first).toBe("Scope src/main at small");
    expect(second).toBe(first);
    expect(other).toBe("Scope src/main at large");
    expect(evaluate).toHaveBeenCalledTimes(2);
    evaluate.mockRestore();
  });

  it("renders concurrent identical requests once", async () => {
    // Prepare
    const local = newRenderer();
    const evaluate = vi.spyOn(pool, "evaluate");

    // Act
    const outputs = await Promise.all([1, 2, 3].map(() => local.render("{{ lang }}!", context)));

    // Assess
    expect(outputs).toEqual(["de!", "de!", "de!"]);
    expect(evaluate).toHaveBeenCalledTimes(1);
    evaluate.mockRestore();
  });

  it("answers cached() from the render cache only, without rendering and without throwing", async () => {
    // Prepare
    const local = newRenderer();
    const evaluate = vi.spyOn(pool, "evaluate");
    const template = "Hello {{ lang }}";
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;

    // Act
    const before = local.cached(template, context);
    const rendered = await local.render(template, context);
    const after = local.cached(template, { ...context });
    const otherContext = local.cached(template, { ...context, lang: "fr" });
    const plain = local.cached("no syntax here", context);
    const notJson = local.cached(template, { params: cyclic });

    // Assess
    expect(before).toBeUndefined();
    expect(after).toBe(rendered);
    expect(rendered).toBe("Hello de");
    expect(otherContext).toBeUndefined();
    expect(plain).toBe("no syntax here");
    expect(notJson).toBeUndefined();
    expect(evaluate).toHaveBeenCalledTimes(1);
    evaluate.mockRestore();
  });

  it("caches a syntax error without compiling again", async () => {
    // Prepare
    const local = newRenderer();

    // Act
    const first = await failureOf(local.render("{% if %}", context));
    const second = await failureOf(local.render("{% if %}", context));

    // Assess
    expect(first).toBeInstanceOf(TemplateSyntaxError);
    expect(second).toBe(first);
  });

  it("keeps the most recently used renders beyond renderCacheEntries, dropping the least recently used", async () => {
    // Prepare
    const local = createTemplateRenderer({ pool, timeoutMs: 5_000, renderCacheEntries: 2 });
    const say = (word: string): RenderContext => ({ ...context, args: { word } });
    await local.render("{{ args.word }}", say("a"));
    await local.render("{{ args.word }}", say("b"));
    local.cached("{{ args.word }}", say("a")); // a is now the most recent

    // Act
    await local.render("{{ args.word }}", say("c"));

    // Assess
    expect(local.cached("{{ args.word }}", say("a"))).toBe("a");
    expect(local.cached("{{ args.word }}", say("b"))).toBeUndefined();
    expect(local.cached("{{ args.word }}", say("c"))).toBe("c");
  });

  it("bounds the renders kept by their total characters and never keeps one larger than renderCacheChars", async () => {
    // Prepare
    const local = createTemplateRenderer({ pool, timeoutMs: 5_000, renderCacheChars: 10 });
    const say = (word: string): RenderContext => ({ ...context, args: { word } });
    await local.render("{{ args.word }}", say("aaaa"));
    await local.render("{{ args.word }}", say("bbbb"));

    // Act
    await local.render("{{ args.word }}", say("cccc"));
    const huge = await local.render("{{ args.word }}", say("x".repeat(11)));

    // Assess
    expect(huge).toBe("x".repeat(11));
    expect(local.cached("{{ args.word }}", say("aaaa"))).toBeUndefined();
    expect(local.cached("{{ args.word }}", say("bbbb"))).toBe("bbbb");
    expect(local.cached("{{ args.word }}", say("cccc"))).toBe("cccc");
    expect(local.cached("{{ args.word }}", say("x".repeat(11)))).toBeUndefined();
  });

  it("caches an empty output like any other", async () => {
    // Prepare
    const local = newRenderer();
    const evaluate = vi.spyOn(pool, "evaluate");

    // Act
    const first = await local.render("{{ args.missing }}", context);
    const second = await local.render("{{ args.missing }}", { ...context });

    // Assess
    expect(first).toBe("");
    expect(second).toBe("");
    expect(local.cached("{{ args.missing }}", context)).toBe("");
    expect(evaluate).toHaveBeenCalledTimes(1);
    evaluate.mockRestore();
  });
});

describe("SandboxedTemplateRenderer: typed failures", () => {
  it("reports a syntax error with its line", async () => {
    // Act
    const error = await failureOf(renderer.render("line one\nline two {% if %}\nline three", context));

    // Assess
    expect(error).toBeInstanceOf(TemplateSyntaxError);
    expect((error as TemplateSyntaxError).line).toBe(2);
    expect((error as TemplateSyntaxError).message).toBe("unexpected token: %}");
  });

  it("reports a render error with its template line", async () => {
    // Act
    const error = await failureOf(renderer.render("one\n\n{{ missing() }}", context));

    // Assess
    expect(error).toBeInstanceOf(TemplateRenderError);
    expect((error as TemplateRenderError).line).toBe(3);
    expect((error as TemplateRenderError).message).toMatch(/Unable to call `missing`/);
  });

  it.each([
    ["include", "{% include 'other.md' %}"],
    ["include ignore missing", "{% include 'other.md' ignore missing %}"],
    ["import", "{% import 'macros.md' as m %}{{ m.x() }}"],
    ["from import", "{% from 'macros.md' import x %}{{ x() }}"],
    ["extends", "{% extends 'base.md' %}{% block body %}b{% endblock %}"],
  ])("fails %s cleanly: templates cannot load other templates", async (_, template) => {
    // Act
    const error = await failureOf(renderer.render(template, context));

    // Assess
    expect(error).toBeInstanceOf(TemplateRenderError);
    expect((error as TemplateRenderError).message).toMatch(/cannot include, import or extend/);
  });

  it("reports an unknown filter as a render error", async () => {
    // Act
    const error = await failureOf(renderer.render("{{ tier | shout }}", context));

    // Assess
    expect(error).toBeInstanceOf(TemplateRenderError);
    expect((error as TemplateRenderError).message).toBe("filter not found: shout");
  });

  it("rejects a template over the size bound before compiling it", async () => {
    // Prepare
    const local = createTemplateRenderer({ pool, maxTemplateChars: 100 });

    // Act
    const error = await failureOf(local.render(`{{ tier }}${"x".repeat(200)}`, context));

    // Assess
    expect(error).toBeInstanceOf(TemplateLimitExceeded);
    expect((error as TemplateLimitExceeded).limit).toBe("size");
  });
});
