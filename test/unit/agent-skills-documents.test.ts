import { describe, expect, it } from "vitest";
import { resolvedSkill } from "../../bench/compose-bench-helpers.js";
import { parseAllowedTools } from "../../shared/skills/allowed-tools.js";
import { firstParagraph } from "../../shared/skills/agent-skills-fields.js";
import { substitutePlaceholders } from "../../shared/skills/skill-body.js";
import { bindArguments } from "../../shared/skills/skill-argument-binder.js";
import { parseSkillDocument } from "../../shared/skills/skill-document-parser.js";
import { composeSection } from "../../shared/skills/skill-prompt-composer.js";
import type { RenderContext, TemplateRenderer } from "../../shared/templates/template-renderer.js";

const path = (name: string) => `_vance/skills/${name}/SKILL.md`;
const parse = (text: string, name = "pdf-tools") => parseSkillDocument(name, text, path(name));
const warnings = (result: ReturnType<typeof parse>) =>
  result.problems.filter((p) => p.severity === "warning").map((p) => `${p.line}: ${p.message}`);
const infos = (result: ReturnType<typeof parse>) =>
  result.problems.filter((p) => p.severity === "info").map((p) => `${p.line}: ${p.message}`);
const errors = (result: ReturnType<typeof parse>) => result.problems.filter((p) => p.severity === "error").map((p) => p.message);

/** Counts renders: a body that is not a template must never reach it. */
class CountingRenderer implements TemplateRenderer {
  renders = 0;
  async render(template: string, _context: RenderContext): Promise<string> {
    this.renders += 1;
    return `RENDERED(${template})`;
  }
}

describe("Agent Skills shapes load, each deviation a warning with its line", () => {
  it("takes a display name, a long multi-line description and when_to_use, with no title and no version", () => {
    // Prepare
    const long = "Automates Ahrefs. ".repeat(60).trim();
    const text = [
      "---",
      "name: Ahrefs Automation",
      "description: |-",
      `  ${long}`,
      "  Second line.",
      "when_to_use: When the user asks about backlinks",
      "---",
      "Body.",
    ].join("\n");

    // Act
    const result = parse(text, "ahrefs-automation");

    // Assess
    expect(errors(result)).toEqual([]);
    expect(result.definition).toMatchObject({
      name: "ahrefs-automation",
      title: "Ahrefs Automation",
      description: `${long}\nSecond line.`,
      whenToUse: "When the user asks about backlinks",
      template: false,
    });
    expect(result.definition?.version).toBeUndefined();
    expect(warnings(result)).toEqual([
      "2: name: is 'Ahrefs Automation', not the directory name: the skill is called 'ahrefs-automation'; 'Ahrefs Automation' becomes its title",
      `3: description: has ${long.length + "\nSecond line.".length} characters; Agent Skills hosts allow 1024 (kept whole here; the catalog shortens it)`,
    ]);
    // What every Agent Skills document looks like changes nothing: info, not a warning.
    expect(infos(result)).toEqual([
      "2: title: is absent; the title is 'Ahrefs Automation'",
      "2: version: is absent (Agent Skills documents have none); the skill reports no version",
    ]);
  });

  it("keeps license, compatibility, metadata with non-text values, and names other hosts' fields in their warnings", () => {
    // Prepare
    const text = [
      "---",
      "name: pdf-tools",
      "description: Fill PDF forms",
      "license: Proprietary. LICENSE.txt has complete terms",
      "compatibility: Requires python3 and poppler",
      "metadata:",
      "  author: team",
      "  version: 2",
      "  tags: [a, b]",
      "model: opus",
      "hooks: {}",
      "category: documents",
      "x-vendor-flag: true",
      "---",
    ].join("\n");

    // Act
    const result = parse(text);

    // Assess
    expect(errors(result)).toEqual([]);
    expect(result.definition).toMatchObject({
      license: "Proprietary. LICENSE.txt has complete terms",
      compatibility: "Requires python3 and poppler",
      metadata: { author: "team", version: "2", tags: '["a","b"]' },
    });
    expect(warnings(result)).toEqual(
      expect.arrayContaining([
        "10: field 'model' (Claude Code) is not used by this service (ignored)",
        "11: field 'hooks' (Claude Code) is not used by this service (ignored)",
        "13: unknown field 'x-vendor-flag' (ignored)",
      ]),
    );
    // Descriptive fields and metadata read as text change nothing: infos.
    expect(infos(result)).toEqual(
      expect.arrayContaining([
        "12: field 'category' (skill collections) is not used by this service (ignored)",
        "8: metadata.version: Agent Skills metadata values are text; 'version', 'tags' kept as JSON text",
      ]),
    );
  });

  it("reads Claude Code invocation fields, including argument-hint written as a YAML list and quoted booleans", () => {
    // Act
    const result = parse(
      "---\nname: pdf-tools\ndescription: d\nargument-hint: [issue-number]\ndisable-model-invocation: true\nuser-invocable: 'false'\n---\n",
    );

    // Assess
    expect(result.definition).toMatchObject({ argumentHint: "[issue-number]", disableModelInvocation: true, userInvocable: false });
    expect(warnings(result)).toContain("6: user-invocable: is the text 'false', read as false; write true or false without quotes");
  });

  it("takes the body's first paragraph when there is no description, as Claude Code does", () => {
    // Act
    const result = parse("---\nname: pdf-tools\n---\n# PDF tools\n\nFill and merge PDF files.\nWith pdftk.\n\nMore.\n");

    // Assess
    expect(result.definition?.description).toBe("Fill and merge PDF files. With pdftk.");
    expect(warnings(result)).toContain("2: description: is absent; the body's first paragraph stands in (as Claude Code does)");
  });

  it.each(["../ctl", "a/b", "back\\slash", "..", "tab\tname"])(
    "refuses a name: that reads like a path (%j), whatever the directory",
    (name) => {
      // Act
      const result = parse(`---\nname: ${JSON.stringify(name)}\ndescription: d\n---\n`);

      // Assess
      expect(result.definition).toBeUndefined();
      // A control character (the tab) is refused by the schema before the path rule looks (issue 28).
      expect(errors(result)[0]).toMatch(name.includes("\t") ? /^name: must not contain control characters/ : /^name: .* looks like a path/);
    },
  );

  it("still refuses what would break behaviour here: an invalid regex trigger, a bad lifecycle", () => {
    // Act
    const regex = parse("---\ndescription: d\ntriggers:\n  - type: PATTERN\n    pattern: '(unclosed'\n---\n");
    const lifecycle = parse("---\ndescription: d\nlifecycle: forever\n---\n");

    // Assess
    expect(regex.definition).toBeUndefined();
    expect(lifecycle.definition).toBeUndefined();
  });
});

describe("allowed-tools as Claude Code writes it", () => {
  it("splits on commas and spaces outside parentheses, keeping permission patterns whole", () => {
    // Act
    const parsed = parseAllowedTools("Read, Grep, Bash(git add:*), Bash(gh pr view:*) WebFetch(domain:example.com,other.com)");

    // Assess
    expect(parsed).toEqual({
      names: ["Read", "Grep", "Bash", "WebFetch"],
      patterns: ["Read", "Grep", "Bash(git add:*)", "Bash(gh pr view:*)", "WebFetch(domain:example.com,other.com)"],
      problems: [],
    });
  });

  it("reports an unclosed parenthesis and an entry without a tool name, and keeps list entries whole", () => {
    // Act
    const unclosed = parseAllowedTools("Read Bash(git add:*");
    const nameless = parseAllowedTools("(oops) Read");
    const list = parseAllowedTools(["Bash(git add:*)", " Read ", ""]);

    // Assess
    expect(unclosed).toEqual({
      names: ["Read", "Bash"],
      patterns: ["Read", "Bash(git add:*"],
      problems: ["has a '(' that is never closed; the rest of the value is one entry"],
    });
    expect(nameless.problems).toEqual(["entry '(oops)' names no tool (ignored)"]);
    expect(list).toEqual({ names: ["Bash", "Read"], patterns: ["Bash(git add:*)", "Read"], problems: [] });
  });

  it("puts only tool names into the skill's tools and the whole entries into allowedToolPatterns", () => {
    // Act
    const result = parse("---\nname: pdf-tools\ndescription: d\nallowed-tools: Read, Grep, Bash(git add:*), Bash(gh pr view:*)\n---\n");

    // Assess
    expect(result.definition?.tools).toEqual(["Read", "Grep", "Bash"]);
    expect(result.definition?.allowedToolPatterns).toEqual(["Read", "Grep", "Bash(git add:*)", "Bash(gh pr view:*)"]);
  });
});

describe("bodies written for other hosts reach the model byte for byte", () => {
  const literal = "Run `SELECT * FROM t WHERE id = {{user_id}}`.\nIn CI: ${{ secrets.TOKEN }}\n{# not a comment here #}\n{% raw %} stays";

  it("sends an Agent Skills body with template-looking text as written, without rendering it", async () => {
    // Prepare
    const parsed = parse(`---\nname: pdf-tools\ndescription: d\n---\n${literal}\n`);
    const renderer = new CountingRenderer();

    // Act
    const composed = await composeSection([{ skill: resolvedSkill({ ...parsed.definition!, name: "pdf-tools" }) }], {}, renderer);

    // Assess
    expect(parsed.definition?.template).toBe(false);
    expect(composed.section).toBe(`--- Skill: pdf-tools ---\nd\n\n${literal}`);
    expect(renderer.renders).toBe(0);
  });

  it("renders a body of this service's own form (title and version) as before, and obeys an explicit template field", async () => {
    // Prepare
    const own = parse("---\ntitle: T\nversion: 1.0.0\ndescription: d\n---\n{% if tier %}x{% endif %}\n");
    const optedOut = parse("---\ntitle: T\nversion: 1.0.0\ndescription: d\ntemplate: false\n---\n{{ keep }}\n");
    const optedIn = parse("---\nname: pdf-tools\ndescription: d\ntemplate: true\n---\n{{ args.text }}\n");
    const renderer = new CountingRenderer();

    // Act
    const section = async (definition: NonNullable<typeof own.definition>) =>
      (await composeSection([{ skill: resolvedSkill({ ...definition }) }], {}, renderer)).section;

    // Assess
    expect(await section(own.definition!)).toContain("RENDERED({% if tier %}x{% endif %})");
    expect(await section(optedOut.definition!)).toContain("{{ keep }}");
    expect(await section(optedIn.definition!)).toContain("RENDERED({{ args.text }})");
    expect(renderer.renders).toBe(2);
  });
});

describe("Claude Code placeholders", () => {
  it("substitutes $ARGUMENTS, $ARGUMENTS[N] and $N from 0; $ARGUMENTS[N] past the end is empty, $N past the end stays literal", () => {
    // Prepare
    const args = bindArguments("s", true, "  fix 123 urgently ");

    // Act
    const text = substitutePlaceholders(
      "s",
      "all=[$ARGUMENTS] first=$ARGUMENTS[0] second=$1 third=$2 none=$7 gone=[$ARGUMENTS[9]] $ARGUMENTS_X $ARGUMENTSX",
      args,
    );

    // Assess
    expect(text).toBe("all=[fix 123 urgently] first=fix second=123 third=urgently none=$7 gone=[] $ARGUMENTS_X $ARGUMENTSX");
  });

  it("inserts arguments as data: template syntax and placeholders inside them are never expanded", () => {
    // Prepare
    const args = bindArguments("s", true, "{{ secrets }} $1 $ARGUMENTS");

    // Act
    const text = substitutePlaceholders("s", "got: $ARGUMENTS / $0", args);

    // Assess
    expect(text).toBe("got: {{ secrets }} $1 $ARGUMENTS / {{");
  });

  it("makes a body that uses them consume the rest of the line, unless arguments says otherwise", () => {
    // Act
    const uses = parse("---\nname: pdf-tools\ndescription: d\n---\nFix issue $ARGUMENTS\n");
    const declared = parse("---\nname: pdf-tools\ndescription: d\narguments: false\n---\nFix issue $0\n");
    const plain = parse("---\nname: pdf-tools\ndescription: d\n---\nNo placeholders.\n");
    const own = parse("---\ntitle: T\nversion: 1.0.0\ndescription: d\n---\necho $1\n");

    // Assess
    expect(uses.definition?.arguments).toBe(true);
    expect(declared.definition?.arguments).toBe(false);
    expect(plain.definition?.arguments).toBe(false);
    expect(own.definition?.arguments).toBe(false);
  });

  it("composes an activated Agent Skills body with its arguments, and leaves a body of this service's form untouched", async () => {
    // Prepare
    const agent = parse("---\nname: fix-issue\ndescription: d\n---\nFix issue #$0 in $ARGUMENTS[1].\n", "fix-issue").definition!;
    const own = parse("---\ntitle: T\nversion: 1.0.0\ndescription: d\n---\necho $1\n", "shell").definition!;

    // Act
    const composed = await composeSection(
      [
        { skill: resolvedSkill({ ...agent }), args: "42 backend" },
        { skill: resolvedSkill({ ...own }), args: "x" },
      ],
      {},
      new CountingRenderer(),
    );

    // Assess
    expect(composed.section).toBe("--- Skill: fix-issue ---\nd\n\nFix issue #42 in backend.\n\n--- Skill: shell ---\nd\n\necho $1");
  });
});

describe("firstParagraph", () => {
  it("skips headings and fences, joins lines, caps at 1 024 characters", () => {
    expect(firstParagraph("# T\n\n```\ncode\n```\n\nReal text\nhere.")).toBe("Real text here.");
    expect(firstParagraph("# Only headings\n\n## More")).toBeUndefined();
    expect(firstParagraph("x".repeat(2000))).toHaveLength(1024);
  });
});
