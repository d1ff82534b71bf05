import { describe, expect, it } from "vitest";
import { resolvedSkill } from "../../bench/compose-bench-helpers.js";
import type { ResolvedSkill } from "../../shared/skills/resolved-skill.js";
import { ON_DEMAND_HEADER, composeSection } from "../../shared/skills/skill-prompt-composer.js";
import { composeManualPaths, composeTools } from "../../shared/skills/tool-union.js";
import { TemplateSyntaxError } from "../../shared/templates/template-errors.js";
import type { RenderContext, TemplateRenderer } from "../../shared/templates/template-renderer.js";

/**
 * Stand-in for the sandboxed renderer: replaces `{{ a.b }}` with the context value (empty when
 * unset), fails on `{% broken %}`, and can delay a template to reorder completions.
 */
class FakeRenderer implements TemplateRenderer {
  readonly calls: { template: string; context: RenderContext }[] = [];
  inFlight = 0;
  maxInFlight = 0;

  constructor(private readonly delays: Record<string, number> = {}) {}

  async render(template: string, context: RenderContext): Promise<string> {
    this.calls.push({ template, context });
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const delay = Object.entries(this.delays).find(([marker]) => template.includes(marker))?.[1] ?? 0;
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (template.includes("{% broken %}")) throw new TemplateSyntaxError("unknown block tag: broken", 1);
      if (template.includes("{% crash %}")) throw new Error("renderer worker died");
      return template.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_, path: string) => {
        const value = path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], context);
        return value === undefined ? "" : String(value);
      });
    } finally {
      this.inFlight -= 1;
    }
  }
}

/** A renderer with an output cache, like SandboxedTemplateRenderer: `cached` answers what was rendered before. */
class CachingFakeRenderer extends FakeRenderer {
  private readonly outputs = new Map<string, string>();
  cachedCalls = 0;

  override async render(template: string, context: RenderContext): Promise<string> {
    const output = await super.render(template, context);
    this.outputs.set(JSON.stringify([template, context]), output);
    return output;
  }

  cached(template: string, context: RenderContext): string | undefined {
    this.cachedCalls += 1;
    return this.outputs.get(JSON.stringify([template, context]));
  }
}

const skill = (name: string, overrides: Partial<ResolvedSkill> = {}): ResolvedSkill =>
  resolvedSkill({ name, description: `${name} description`, ...overrides });

describe("composeSection: layout", () => {
  it("renders skills in activation order with description, body and INLINE docs, blank lines between blocks", async () => {
    // Prepare
    const review = skill("code-review", {
      body: "\n\nReview for tier {{ tier }}.\n\n",
      referenceDocs: [
        { title: "Review Checklist", file: "references/checklist.md", loadMode: "INLINE", content: "- tests\n- naming\n" },
        { title: "Patterns", file: "references/patterns.md", loadMode: "ON_DEMAND", summary: "Common patterns" },
      ],
    });
    const style = skill("typescript-style", {
      body: "Use strict mode.",
      referenceDocs: [{ title: "Glossary", file: "references/glossary.md", loadMode: "ON_DEMAND" }],
    });

    // Act
    const result = await composeSection([{ skill: review }, { skill: style }], { tier: "large" }, new FakeRenderer());

    // Assess
    expect(result.section).toBe(
      [
        "--- Skill: code-review ---",
        "code-review description",
        "",
        "Review for tier large.",
        "",
        "--- Reference Doc: Review Checklist ---",
        "- tests",
        "- naming",
        "",
        "--- Skill: typescript-style ---",
        "typescript-style description",
        "",
        "Use strict mode.",
        "",
        ON_DEMAND_HEADER,
        "- Patterns — Common patterns",
        "- Glossary",
      ].join("\n"),
    );
    expect(result.included).toEqual(["code-review", "typescript-style"]);
    expect(result.onDemand).toEqual([
      { skill: "code-review", title: "Patterns", summary: "Common patterns" },
      { skill: "typescript-style", title: "Glossary", summary: undefined },
    ]);
    expect(result.warnings).toEqual([]);
  });

  it("writes no body line for an empty or blank body, and no listing without ON_DEMAND docs", async () => {
    // Prepare
    const guard = skill("code-guard", { body: "" });
    const blank = skill("blank", { body: "{{ args.text }}\n  \n", arguments: true });

    // Act
    const result = await composeSection([{ skill: guard }, { skill: blank }], {}, new FakeRenderer());

    // Assess
    expect(result.section).toBe("--- Skill: code-guard ---\ncode-guard description\n\n--- Skill: blank ---\nblank description");
  });

  it("returns an empty section for no skills", async () => {
    // Act
    const result = await composeSection([], {}, new FakeRenderer());

    // Assess
    expect(result).toEqual({ section: "", onDemand: [], warnings: [], errors: [], included: [], blockChars: [] });
  });

  it("keeps activation order when later skills finish rendering first, rendering concurrently", async () => {
    // Prepare
    const renderer = new FakeRenderer({ slow: 30 });
    const first = skill("first", { body: "slow {{ tier }}" });
    const second = skill("second", { body: "fast {{ tier }}" });

    // Act
    const result = await composeSection([{ skill: first }, { skill: second }], { tier: "t" }, renderer);

    // Assess
    expect(result.included).toEqual(["first", "second"]);
    expect(result.section.indexOf("slow t")).toBeLessThan(result.section.indexOf("fast t"));
    expect(renderer.maxInFlight).toBe(2);
  });
});

describe("composeSection: rendering", () => {
  it("binds each skill's own arguments; no skill sees another's or the caller's args", async () => {
    // Prepare
    const renderer = new FakeRenderer();
    const review = skill("review", { body: "Scope: {{ args.scope }}", arguments: [{ name: "scope", type: "string", required: false }] });
    const raw = skill("raw", { body: "Text: [{{ args.text }}] Scope: [{{ args.scope }}]", arguments: true });
    const none = skill("none", { body: "Args: [{{ args.text }}]" });

    // Act
    const result = await composeSection(
      [{ skill: review, args: "src/main java" }, { skill: raw }, { skill: none, args: "ignored" }],
      { tier: "small", args: { text: "caller leak" } },
      renderer,
    );

    // Assess
    expect(result.section).toContain("Scope: src/main java");
    expect(result.section).toContain("Text: [] Scope: []");
    expect(result.section).toContain("Args: []");
    expect(renderer.calls.map((call) => call.context.args)).toEqual([
      { text: "src/main java", words: ["src/main", "java"], scope: "src/main java" },
      { text: "", words: [] },
      undefined,
    ]);
    expect(renderer.calls.every((call) => call.context.tier === "small")).toBe(true);
  });

  it("skips the renderer for bodies without template syntax", async () => {
    // Prepare
    const renderer = new FakeRenderer();

    // Act
    const result = await composeSection([{ skill: skill("plain", { body: "Just Markdown, { not a tag }." }) }], {}, renderer);

    // Assess
    expect(renderer.calls).toEqual([]);
    expect(result.section).toContain("Just Markdown, { not a tag }.");
  });

  it("skips a skill whose template fails, with a warning, and composes the others", async () => {
    // Prepare
    const broken = skill("broken", {
      body: "{% broken %}",
      referenceDocs: [{ title: "Hidden", file: "references/h.md", loadMode: "ON_DEMAND" }],
    });
    const fine = skill("fine", { body: "Fine {{ tier }}" });

    // Act
    const result = await composeSection([{ skill: broken }, { skill: fine }], { tier: "x" }, new FakeRenderer());

    // Assess
    expect(result.warnings).toEqual([{ skill: "broken", message: "unknown block tag: broken" }]);
    expect(result.included).toEqual(["fine"]);
    expect(result.section).toBe("--- Skill: fine ---\nfine description\n\nFine x");
    expect(result.onDemand).toEqual([]);
  });

  it("skips a skill whose arguments no longer bind, even with a plain body", async () => {
    // Prepare
    const strict = skill("strict", { body: "Plain.", arguments: [{ name: "target", type: "string", required: true }] });
    const typed = skill("typed", { body: "{{ args.n }}", arguments: [{ name: "n", type: "integer", required: false }] });

    // Act
    const result = await composeSection([{ skill: strict }, { skill: typed, args: "many" }], {}, new FakeRenderer());

    // Assess
    expect(result.included).toEqual([]);
    expect(result.section).toBe("");
    expect(result.warnings.map((w) => w.skill)).toEqual(["strict", "typed"]);
    expect(result.warnings[0]?.message).toContain("requires argument 'target'");
    expect(result.warnings[1]?.message).toContain("must be an integer");
  });

  it("rejects when the renderer fails with something other than a TemplateError", async () => {
    // Prepare
    const crashing = skill("crashing", { body: "{% crash %}" });

    // Act
    const attempt = composeSection([{ skill: crashing }, { skill: skill("ok") }], {}, new FakeRenderer());

    // Assess
    await expect(attempt).rejects.toThrow("renderer worker died");
  });

  it("takes cached outputs without rendering again, and composes the same section as the first time", async () => {
    // Prepare
    const renderer = new CachingFakeRenderer();
    const review = skill("review", {
      body: "Scope: {{ args.scope }} at {{ tier }}",
      arguments: [{ name: "scope", type: "string", required: false }],
      referenceDocs: [{ title: "Patterns", file: "references/p.md", loadMode: "ON_DEMAND", summary: "Common patterns" }],
    });
    const plain = skill("plain", { body: "Plain." });
    const entries = [{ skill: review, args: "src" }, { skill: plain }];
    const first = await composeSection(entries, { tier: "large" }, renderer);

    // Act
    const again = await composeSection(entries, { tier: "large" }, renderer);
    const otherArgs = await composeSection([{ skill: review, args: "lib" }, { skill: plain }], { tier: "large" }, renderer);

    // Assess
    expect(again).toEqual(first);
    expect(first.section).toContain("Scope: src at large");
    expect(otherArgs.section).toContain("Scope: lib at large");
    expect(otherArgs.section).not.toContain("Scope: src");
    expect(renderer.calls.map((call) => call.context.args?.scope)).toEqual(["src", "lib"]);
    expect(renderer.cachedCalls).toBe(3);
  });

  it("hands the renderer the caller's context plus args, keys in the caller's order, a `__proto__` key as data", async () => {
    // Prepare
    const renderer = new FakeRenderer();
    const body = skill("body", { body: "{{ tier }}", arguments: true });
    const hostile = JSON.parse('{"tier":"t","__proto__":{"polluted":true},"lang":"de"}') as RenderContext;

    // Act
    await composeSection([{ skill: body, args: "a b" }], { lang: "de", tier: "t", args: { text: "old" } }, renderer);
    await composeSection([{ skill: body }], hostile, renderer);

    // Assess
    const [plain, odd] = renderer.calls.map((call) => call.context);
    expect(Object.keys(plain ?? {})).toEqual(["lang", "tier", "args"]);
    expect(plain?.args).toEqual({ text: "a b", words: ["a", "b"] });
    expect(Object.keys(odd ?? {})).toEqual(["tier", "__proto__", "lang", "args"]);
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
    expect((odd as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("still reports a skill whose arguments stopped binding when its old output is cached", async () => {
    // Prepare
    const renderer = new CachingFakeRenderer();
    const typed = skill("typed", { body: "n={{ args.n }}", arguments: [{ name: "n", type: "integer", required: false }] });
    await composeSection([{ skill: typed, args: "1" }], {}, renderer);

    // Act
    const result = await composeSection([{ skill: typed, args: "one" }], {}, renderer);

    // Assess
    expect(result.included).toEqual([]);
    expect(result.warnings[0]?.message).toContain("must be an integer");
  });

  it("rejects on a renderer failure even when another skill's output is cached", async () => {
    // Prepare
    const renderer = new CachingFakeRenderer();
    const cachedSkill = skill("cached", { body: "ok {{ tier }}" });
    await composeSection([{ skill: cachedSkill }], { tier: "t" }, renderer);

    // Act
    const attempt = composeSection(
      [{ skill: cachedSkill }, { skill: skill("crashing", { body: "{% crash %}" }) }],
      { tier: "t" },
      renderer,
    );

    // Assess
    await expect(attempt).rejects.toThrow("renderer worker died");
  });

  it("passes INLINE doc content through unrendered, and leaves out docs without content", async () => {
    // Prepare
    const renderer = new FakeRenderer();
    const docs = skill("docs", {
      body: "Body {{ tier }}",
      referenceDocs: [
        { title: "Literal", file: "references/l.md", loadMode: "INLINE", content: "Keep {% raw %}{{ args.x }}{% endraw %} as is" },
        { title: "Missing", file: "references/m.md", loadMode: "INLINE" },
      ],
    });

    // Act
    const result = await composeSection([{ skill: docs, args: "x" }], { tier: "t" }, renderer);

    // Assess
    expect(result.section).toContain("--- Reference Doc: Literal ---\nKeep {% raw %}{{ args.x }}{% endraw %} as is");
    expect(result.section).not.toContain("Missing");
    expect(renderer.calls.map((call) => call.template)).toEqual(["Body {{ tier }}"]);
  });
});

describe("composeTools", () => {
  it("computes (engine ∪ recipe.add) \\ recipe.remove ∪ skill tools, ordered and deduplicated", () => {
    // Act
    const tools = composeTools({
      engineTools: ["web_search", "file_read", "shell_exec"],
      recipeAdd: ["process_spawn", "file_read"],
      recipeRemove: ["shell_exec", "web_search"],
      skills: [{ tools: ["git_diff", "file_read"] }, { tools: ["shell_exec", "git_diff", "Custom.Tool"] }],
    });

    // Assess
    expect(tools).toEqual(["file_read", "process_spawn", "git_diff", "shell_exec", "Custom.Tool"]);
  });

  it("works without recipe adjustments or skills", () => {
    // Assess
    expect(composeTools({ engineTools: ["a", "b", "a"], skills: [] })).toEqual(["a", "b"]);
  });
});

describe("composeManualPaths", () => {
  it("puts recipe paths first, then skill paths in activation order, deduplicated", () => {
    // Act
    const paths = composeManualPaths({
      recipePaths: ["manuals/recipe", "manuals/shared"],
      skills: [{ manualPaths: ["manuals/shared", "manuals/review"] }, { manualPaths: ["manuals/style", "manuals/review"] }],
    });

    // Assess
    expect(paths).toEqual(["manuals/recipe", "manuals/shared", "manuals/review", "manuals/style"]);
  });

  it("returns skill paths alone when the recipe has none", () => {
    // Assess
    expect(composeManualPaths({ skills: [{ manualPaths: ["b"] }, { manualPaths: ["a"] }] })).toEqual(["b", "a"]);
  });
});
