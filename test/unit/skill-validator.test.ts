import { describe, expect, it } from "vitest";
import { checkSkillFilePath, sanitizeManualPath } from "../../shared/skills/manual-path.js";
import { parseSkillDocument } from "../../shared/skills/skill-document-parser.js";
import { skillFrontmatterSchemas } from "../../shared/skills/skill-frontmatter.js";
import type { SkillFrontmatterInput } from "../../shared/skills/skill-frontmatter.js";
import { validateSkillFrontmatter } from "../../shared/skills/skill-validator.js";

const PATH = "_vance/skills/reviewer/SKILL.md";
const HEADER = ["---", "title: Reviewer", "description: Reviews code", "version: 1.0.0"];
/** A document from frontmatter lines after the header; line numbers start at 5. */
const parse = (...lines: string[]) => parseSkillDocument("reviewer", [...HEADER, ...lines, "---", "body"].join("\n"), PATH);
const validate = (input: Partial<SkillFrontmatterInput>) =>
  validateSkillFrontmatter(
    skillFrontmatterSchemas().SkillFrontmatter.parse({ title: "Reviewer", description: "Reviews code", version: "1.0.0", ...input }),
    "reviewer",
  );

describe("validateSkillFrontmatter: run.target spawn (spec §2c)", () => {
  it("accepts a spawn skill with recipe and action", () => {
    // Assess
    expect(validate({ run: { target: "spawn", recipe: "code-read" }, action: "Review now." })).toEqual([]);
  });

  it("requires run.recipe, at the line of run", () => {
    // Act
    const result = parse("run:", "  target: spawn", "action: Review now.");

    // Assess
    expect(result.definition).toBeUndefined();
    expect(result.problems).toEqual([{ path: PATH, line: 5, message: "run.recipe: is required for run.target: spawn", severity: "error" }]);
  });

  it.each([
    ["missing", []],
    ["blank", ['action: "  \\n\\t "']],
  ])("requires a non-blank action (%s)", (_case, lines) => {
    // Act
    const result = parse("run: {target: spawn, recipe: code-read}", ...lines);

    // Assess
    expect(result.definition).toBeUndefined();
    expect(result.problems.map((p) => p.message)).toEqual([
      "action: is required for run.target: spawn (without it the worker would start and idle)",
    ]);
  });

  it("refuses lifecycle: shot together with spawn, at the line of lifecycle", () => {
    // Act
    const result = parse("run: {target: spawn, recipe: code-read}", "action: go", "lifecycle: shot");

    // Assess
    expect(result.problems).toEqual([
      { path: PATH, line: 7, message: "lifecycle: shot cannot be combined with run.target: spawn", severity: "error" },
    ]);
  });

  it("warns, without refusing, about triggers on a spawn skill", () => {
    // Act
    const result = parse("run: {target: spawn, recipe: code-read}", "action: go", "triggers:", "  - {type: KEYWORDS, keywords: [review]}");

    // Assess
    expect(result.definition).toBeDefined();
    expect(result.problems).toEqual([
      {
        path: PATH,
        line: 7,
        message: "triggers: are ignored for run.target: spawn (only an explicit /skill starts a worker)",
        severity: "warning",
      },
    ]);
  });

  it("warns that run.recipe means nothing for an inline skill", () => {
    // Assess
    expect(validate({ run: { recipe: "code-read" } })).toEqual([
      { field: ["run", "recipe"], message: "is ignored unless run.target is spawn", severity: "warning" },
    ]);
  });
});

describe("validateSkillFrontmatter: lifecycle", () => {
  it("warns that deactivate never fires for a shot skill", () => {
    // Assess
    expect(validate({ lifecycle: "shot", deactivate: ["guard clear"] })).toEqual([
      { field: ["deactivate"], message: "is never fired for lifecycle: shot", severity: "warning" },
    ]);
  });
});

describe("validateSkillFrontmatter: paths", () => {
  it("normalizes manualPaths into the definition", () => {
    // Act
    const result = parse("manualPaths:", "  - /docs/manuals/", "  - 'guides\\style'", "  - docs/manuals");

    // Assess
    expect(result.problems).toEqual([]);
    expect(result.definition?.manualPaths).toEqual(["docs/manuals", "guides/style"]);
  });

  it.each([
    ["../secrets", "manualPaths[1]: must not contain '..' (it would leave the document root)"],
    ["docs\\..\\..\\x", "manualPaths[1]: must not contain '..' (it would leave the document root)"],
    ["docs//x", "manualPaths[1]: must not contain empty segments ('//')"],
    ["./docs", "manualPaths[1]: must not contain '.' segments"],
    ["/", "manualPaths[1]: must name a folder below the document root"],
  ])("refuses the manual path %j at its line", (raw, message) => {
    // Act
    const result = parse("manualPaths:", "  - docs", `  - ${JSON.stringify(raw)}`);

    // Assess
    expect(result.definition).toBeUndefined();
    expect(result.problems).toEqual([{ path: PATH, line: 7, message, severity: "error" }]);
  });

  it.each([
    [
      "referenceDocs",
      "referenceDocs:\n  - {title: A, file: '../other-skill/SKILL.md'}",
      "referenceDocs[0].file: must not contain '..' (it would leave the skill directory)",
    ],
    [
      "referenceDocs",
      "referenceDocs:\n  - {title: A, file: /etc/passwd}",
      "referenceDocs[0].file: must be relative to the skill directory (no leading '/' or drive)",
    ],
    ["scripts", "scripts:\n  - {name: a, file: 'scripts\\..\\..\\x.js'}", "scripts[0].file: must use '/' as separator (no backslashes)"],
    [
      "scripts",
      "scripts:\n  - {name: a, file: 'C:/x.js'}",
      "scripts[0].file: must be relative to the skill directory (no leading '/' or drive)",
    ],
  ])("refuses a %s file outside the skill directory", (_field, yaml, message) => {
    // Act
    const result = parse(yaml);

    // Assess
    expect(result.definition).toBeUndefined();
    expect(result.problems).toEqual([{ path: PATH, line: 6, message, severity: "error" }]);
  });
});

describe("validateSkillFrontmatter: duplicates", () => {
  it("refuses duplicate argument names", () => {
    // Act
    const result = parse("arguments:", "  - name: scope", "  - name: depth", "  - name: scope");

    // Assess
    expect(result.problems).toEqual([
      { path: PATH, line: 8, message: "arguments[2].name: duplicate argument name 'scope' (first at index 0)", severity: "error" },
    ]);
  });

  it("refuses duplicate script names", () => {
    // Assess
    expect(
      validate({
        scripts: [
          { name: "lint", file: "scripts/a.js" },
          { name: "lint", file: "scripts/b.js" },
        ],
      }),
    ).toEqual([{ field: ["scripts", 1, "name"], message: "duplicate script name 'lint' (first at index 0)", severity: "error" }]);
  });

  it("refuses duplicate reference doc titles", () => {
    // Assess
    expect(
      validate({
        referenceDocs: [
          { title: "Checklist", file: "references/a.md" },
          { title: "Checklist", file: "references/b.md" },
        ],
      }),
    ).toEqual([
      { field: ["referenceDocs", 1, "title"], message: "duplicate reference doc title 'Checklist' (first at index 0)", severity: "error" },
    ]);
  });

  it("refuses duplicate parameter names of one script, but not across scripts", () => {
    // Act
    const problems = validate({
      scripts: [
        { name: "a", file: "scripts/a.js", params: [{ name: "x" }, { name: "x" }] },
        { name: "b", file: "scripts/b.js", params: [{ name: "x" }] },
      ],
    });

    // Assess
    expect(problems).toEqual([
      { field: ["scripts", 0, "params", 1, "name"], message: "duplicate parameter name 'x' (first at index 0)", severity: "error" },
    ]);
  });
});

describe("validateSkillFrontmatter: PATTERN triggers", () => {
  it("refuses a pattern the trigger engine cannot run, naming the construct", () => {
    // Act
    const result = parse("triggers:", "  - type: KEYWORDS", "    keywords: [review]", "  - type: PATTERN", "    pattern: 'review(?=now)'");

    // Assess
    expect(result.definition).toBeUndefined();
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({ line: 9, severity: "error" });
    expect(result.problems[0]?.message).toMatch(/^triggers\[1\]\.pattern: .*lookahead/);
  });

  it("refuses a pattern that matches every message", () => {
    // Assess
    expect(validate({ triggers: [{ type: "PATTERN", pattern: ".*" }] })).toEqual([
      { field: ["triggers", 0, "pattern"], message: expect.stringContaining("empty string"), severity: "error" },
    ]);
  });

  it("accepts the spec's example pattern", () => {
    // Assess
    expect(validate({ triggers: [{ type: "PATTERN", pattern: "schau.*(diff|PR|änderung)" }] })).toEqual([]);
  });
});

describe("validateSkillFrontmatter: identity", () => {
  it("requires title and version when there is no Agent Skills name", () => {
    // Act
    const problems = validateSkillFrontmatter(skillFrontmatterSchemas().SkillFrontmatter.parse({ description: "d" }), "reviewer");

    // Assess
    expect(problems.map((p) => p.field)).toEqual([["title"], ["version"]]);
  });

  it("refuses allowed-tools names longer than a tool name can be", () => {
    // Assess
    expect(validate({ "allowed-tools": `Read ${"x".repeat(129)}` })).toEqual([
      { field: ["allowed-tools"], message: "tool names must be at most 128 characters", severity: "error" },
    ]);
  });
});

describe("sanitizeManualPath", () => {
  it.each([
    ["docs/manuals", "docs/manuals"],
    ["/docs/manuals", "docs/manuals"],
    ["docs\\manuals\\", "docs/manuals"],
    ["_vance/manuals/skill-authoring", "_vance/manuals/skill-authoring"],
  ])("turns %j into %j", (raw, path) => {
    // Assess
    expect(sanitizeManualPath(raw)).toEqual({ ok: true, path });
  });

  it.each(["..", "a/../b", "a\\..", "a\u0000b", "a\nb", "a/%2e%2e/b", "docs?x", "dócs".normalize("NFD")])("refuses %j", (raw) => {
    // Assess
    expect(sanitizeManualPath(raw).ok).toBe(false);
  });
});

describe("checkSkillFilePath", () => {
  it("accepts a plain relative path", () => {
    // Assess
    expect(checkSkillFilePath("references/checklist.md")).toEqual({ ok: true, path: "references/checklist.md" });
  });

  it.each([
    "../x.md",
    "references/../../x.md",
    "/x.md",
    "\\x.md",
    "a\\b.md",
    "c:x.md",
    "references//x.md",
    "./x.md",
    "x.md/",
    "%2e%2e/x.md",
    "x\u0007.md",
  ])("refuses %j", (raw) => {
    // Assess
    expect(checkSkillFilePath(raw).ok).toBe(false);
  });
});
