import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseSkillDocument, splitFrontmatter } from "../../shared/skills/skill-document-parser.js";

const PATH = "_vance/skills/code-review/SKILL.md";
const parse = (text: string, name = "code-review") => parseSkillDocument(name, text, PATH);
const errors = (result: ReturnType<typeof parse>) => result.problems.filter((p) => p.severity === "error");
const messages = (result: ReturnType<typeof parse>) => result.problems.map((p) => p.message);

const MINIMAL = "---\ntitle: Code Review\ndescription: Review the current changes\nversion: 1.0.0\n---\n";

describe("splitFrontmatter", () => {
  it("separates frontmatter and body, dropping blank lines before and whitespace after the body", () => {
    // Act
    const split = splitFrontmatter("---\na: 1\n---\n\n\n# Body\n\ntext\n\n");

    // Assess
    expect(split).toEqual({ ok: true, frontmatter: "a: 1\n", body: "# Body\n\ntext", frontmatterLine: 2 });
  });

  it("accepts a document that ends at the closing fence, with or without a newline", () => {
    // Assess
    expect(splitFrontmatter("---\na: 1\n---")).toMatchObject({ ok: true, frontmatter: "a: 1\n", body: "" });
    expect(splitFrontmatter("---\na: 1\n---\n")).toMatchObject({ ok: true, body: "" });
  });

  it("tolerates CRLF line ends, a BOM and trailing blanks on the fences", () => {
    // Act
    const split = splitFrontmatter("\uFEFF---  \r\na: 1\r\n--- \r\nbody\r\nline\r\n");

    // Assess
    expect(split).toEqual({ ok: true, frontmatter: "a: 1\n", body: "body\nline", frontmatterLine: 2 });
  });

  it("does not close the frontmatter on a '---' inside a line or a longer dash line", () => {
    // Act
    const split = splitFrontmatter("---\na: '---'\nb: ----\n---\nbody");

    // Assess
    expect(split).toMatchObject({ ok: true, frontmatter: "a: '---'\nb: ----\n", body: "body" });
  });

  it.each([
    ["no opening fence", "# Title\n---\na: 1\n---\n", "missing frontmatter: the first line must be '---'"],
    ["an empty text", "", "missing frontmatter: the first line must be '---'"],
    ["an indented fence", " ---\na: 1\n---\n", "missing frontmatter: the first line must be '---'"],
    ["no closing fence", "---\na: 1\n# Body\n", "frontmatter is not closed: no '---' line follows"],
    ["only an opening fence", "---", "frontmatter is not closed: no '---' line follows"],
  ])("refuses %s", (_case, text, message) => {
    // Act
    const split = splitFrontmatter(text);

    // Assess
    expect(split).toEqual({ ok: false, message, line: 1 });
  });
});

describe("parseSkillDocument: valid documents", () => {
  it("normalizes a minimal skill with every default applied", () => {
    // Act
    const result = parse(MINIMAL);

    // Assess
    expect(result.problems).toEqual([]);
    expect(result.definition).toEqual({
      name: "code-review",
      title: "Code Review",
      description: "Review the current changes",
      version: "1.0.0",
      whenToUse: undefined,
      argumentHint: undefined,
      compatibility: undefined,
      disableModelInvocation: false,
      userInvocable: true,
      triggers: [],
      tools: [],
      allowedToolPatterns: [],
      template: true,
      manualPaths: [],
      referenceDocs: [],
      tags: [],
      enabled: true,
      lifecycle: "sticky",
      run: { target: "inline" },
      arguments: false,
      activate: [],
      deactivate: [],
      scripts: [],
      body: "",
    });
  });

  it("parses the bundled code-review example of spec §9", () => {
    // Prepare
    const text = [
      "---",
      "title: Code Review",
      "version: 1.0.0",
      "description: Use when user asks to review PRs, diffs, or code changes",
      "tags: [review, quality]",
      "triggers:",
      "  - type: KEYWORDS",
      "    keywords: [review, diff, PR, pull request]",
      "  - type: PATTERN",
      '    pattern: "schau.*(diff|PR|änderung)"',
      "tools:",
      "  - file_read",
      "  - shell_exec",
      "referenceDocs:",
      "  - file: references/checklist.md",
      "    title: Review Checklist",
      "    loadMode: INLINE",
      "  - file: references/patterns.md",
      "    title: Common Patterns",
      "    loadMode: INLINE",
      "---",
      "",
      "# Skill Body (= promptExtension)",
      "",
      "You are in code review mode. Your task:",
      "- ...",
      "",
    ].join("\n");

    // Act
    const result = parse(text);

    // Assess
    expect(result.problems).toEqual([]);
    expect(result.definition).toMatchObject({
      title: "Code Review",
      version: "1.0.0",
      tags: ["review", "quality"],
      triggers: [
        { type: "KEYWORDS", keywords: ["review", "diff", "PR", "pull request"] },
        { type: "PATTERN", pattern: "schau.*(diff|PR|änderung)" },
      ],
      tools: ["file_read", "shell_exec"],
      referenceDocs: [
        { file: "references/checklist.md", title: "Review Checklist", loadMode: "INLINE" },
        { file: "references/patterns.md", title: "Common Patterns", loadMode: "INLINE" },
      ],
      body: "# Skill Body (= promptExtension)\n\nYou are in code review mode. Your task:\n- ...",
    });
  });

  it("parses the code-guard example of spec §2a (sticky, empty body, activate/deactivate)", () => {
    // Prepare
    const text = [
      "---",
      "title: Code Guard",
      "description: If code is finished, ask for build and spec",
      "version: 1.0.0",
      "activate:",
      "  - |",
      "    guard inline",
      '    const res = vance.llm.callForJson("completion-guard", "Evaluate the guard condition.", {',
      '      judge: "Has a development task of the user been completed?",',
      "      task: vance.guard.task,",
      "      output: vance.guard.output,",
      "    });",
      "    if (res && res.fire) {",
      '      vance.guard.continueWith("Was the build run and the specification updated?");',
      "    }",
      "deactivate:",
      "  - guard clear",
      "---",
      "",
    ].join("\n");

    // Act
    const result = parse(text, "code-guard");

    // Assess
    expect(result.problems).toEqual([]);
    expect(result.definition?.lifecycle).toBe("sticky");
    expect(result.definition?.body).toBe("");
    expect(result.definition?.activate).toHaveLength(1);
    expect(result.definition?.activate[0]).toMatch(/^guard inline\nconst res = vance\.llm\.callForJson\(/);
    expect(result.definition?.activate[0]).toMatch(/\n {2}vance\.guard\.continueWith\(.*\);\n}\n$/);
    expect(result.definition?.deactivate).toEqual(["guard clear"]);
  });

  it("parses the action: example of spec §2a", () => {
    // Prepare
    const text = [
      "---",
      "title: Code Review",
      "description: Review the current changes",
      "version: 1.0.0",
      "action: |",
      "  Review the current code changes now. Gather the diff first, then report.",
      "---",
      "# Skill Body (Review Method) …",
    ].join("\n");

    // Act
    const result = parse(text);

    // Assess
    expect(result.problems).toEqual([]);
    expect(result.definition?.action).toBe("Review the current code changes now. Gather the diff first, then report.\n");
    expect(result.definition?.body).toBe("# Skill Body (Review Method) …");
  });

  it("parses the prompt macro with an argument of spec §2b", () => {
    // Prepare
    const text = [
      "---",
      "title: Code Review",
      "description: Review the current changes",
      "version: 1.0.0",
      "lifecycle: shot",
      "arguments:",
      "  - name: scope",
      "    type: string",
      "    description: What to review — a path, a git range, or empty for the working tree.",
      "---",
      "Review the current code changes now.",
      "{% if args.scope %}Scope: {{ args.scope }}.{% else %}Gather the diff first (git status / git diff).{% endif %}",
      "Report bugs with a concrete failure scenario; skip style nits.",
    ].join("\n");

    // Act
    const result = parse(text);

    // Assess
    expect(result.problems).toEqual([]);
    expect(result.definition?.lifecycle).toBe("shot");
    expect(result.definition?.arguments).toEqual([
      {
        name: "scope",
        type: "string",
        description: "What to review — a path, a git range, or empty for the working tree.",
        required: false,
      },
    ]);
    expect(result.definition?.body).toContain("{% if args.scope %}Scope: {{ args.scope }}.");
  });

  it("parses the spawn example of spec §2c", () => {
    // Prepare
    const text = [
      "---",
      "title: Code Review",
      "description: Review the current changes in a fresh worker, without the chat history",
      "version: 2.0.0",
      "arguments: true",
      "run:",
      "  target: spawn",
      "  recipe: code-read",
      "  inherit: none",
      "action: |",
      "  Review the current code changes now. Gather the diff first, then report.",
      "  {% if args.text %}Scope: {{ args.text }}.{% endif %}",
      "---",
      "# Review Methodology … (System Prompt of the Worker, not the Chat)",
    ].join("\n");

    // Act
    const result = parse(text);

    // Assess
    expect(result.problems).toEqual([]);
    expect(result.definition).toMatchObject({
      version: "2.0.0",
      arguments: true,
      run: { target: "spawn", recipe: "code-read", inherit: "none" },
      action:
        "Review the current code changes now. Gather the diff first, then report.\n{% if args.text %}Scope: {{ args.text }}.{% endif %}\n",
    });
  });

  it("parses the scripts example of spec §13.1 with the params defaults of §13.7", () => {
    // Prepare
    const text = [
      "---",
      "title: PR Review",
      "description: Review pull requests",
      "version: 1.0.0",
      "scripts:",
      "  - name: fetch-diff",
      "    target: BRAIN",
      "    file: scripts/fetch-diff.js",
      "    params:",
      "      - name: range",
      "        type: string",
      "        description: Git range for the diff.",
      "        required: true",
      "  - name: post-comment",
      "    target: FOOT",
      "    file: scripts/post-comment.js",
      "---",
    ].join("\n");

    // Act
    const result = parse(text, "pr-review");

    // Assess
    expect(result.problems).toEqual([]);
    expect(result.definition?.scripts).toEqual([
      {
        name: "fetch-diff",
        target: "BRAIN",
        file: "scripts/fetch-diff.js",
        params: [{ name: "range", type: "string", description: "Git range for the diff.", required: true }],
      },
      { name: "post-comment", target: "FOOT", file: "scripts/post-comment.js" },
    ]);
  });

  it("treats arguments: false like a missing arguments field", () => {
    // Act
    const result = parse(MINIMAL.replace("---\n", "---\narguments: false\n"));

    // Assess
    expect(result.definition?.arguments).toBe(false);
  });

  it("turns a blank action into no action", () => {
    // Act
    const result = parse(MINIMAL.replace("---\n", "---\naction: '   '\n"));

    // Assess
    expect(result.problems).toEqual([]);
    expect(result.definition).not.toHaveProperty("action");
  });

  it("gives a spawn skill inherit: none by default", () => {
    // Act
    const result = parse(MINIMAL.replace("---\n", "---\nrun: {target: spawn, recipe: code-read}\naction: go\n"));

    // Assess
    expect(result.definition?.run).toEqual({ target: "spawn", recipe: "code-read", inherit: "none" });
  });

  it("reads a CRLF document with a BOM and reports lines of the original file", () => {
    // Prepare
    const text =
      "\uFEFF---\r\ntitle: Code Review\r\ndescription: Review\r\nversion: 1.0.0\r\nextra: 1\r\n---\r\n\r\n# Body\r\nline two\r\n";

    // Act
    const result = parse(text);

    // Assess
    expect(result.definition?.body).toBe("# Body\nline two");
    expect(result.problems).toEqual([{ path: PATH, line: 5, message: "unknown field 'extra' (ignored)", severity: "warning" }]);
  });
});

describe("parseSkillDocument: Agent Skills form", () => {
  it("loads a document with only name and description: title from the name, no version, not a template, two infos", () => {
    // Act
    const result = parse("---\nname: code-review\ndescription: Reviews code\n---\nDo the review.\n");

    // Assess
    expect(result.problems).toEqual([
      { path: PATH, line: 2, message: "title: is absent; the title is 'code-review'", severity: "info" },
      {
        path: PATH,
        line: 2,
        message: "version: is absent (Agent Skills documents have none); the skill reports no version",
        severity: "info",
      },
    ]);
    expect(result.definition).toMatchObject({
      name: "code-review",
      title: "code-review",
      description: "Reviews code",
      body: "Do the review.",
      template: false,
    });
    expect(result.definition?.version).toBeUndefined();
  });

  it("keeps an explicit title and version next to name", () => {
    // Act
    const result = parse("---\nname: code-review\ntitle: Code Review\nversion: 1.2.3\ndescription: Reviews code\n---\n");

    // Assess
    expect(result.definition).toMatchObject({ title: "Code Review", version: "1.2.3", template: true });
    expect(result.problems).toEqual([]);
  });

  it("maps a space-separated allowed-tools string, license and metadata", () => {
    // Prepare
    const text = [
      "---",
      "name: code-review",
      "description: Reviews code",
      "allowed-tools: Bash(git:*)  Read\tGrep",
      "license: Apache-2.0",
      "metadata:",
      "  author: someone",
      '  version: "1.0"',
      "---",
    ].join("\n");

    // Act
    const result = parse(text);

    // Assess
    expect(result.problems.filter((p) => p.severity === "error")).toEqual([]);
    expect(result.definition).toMatchObject({
      tools: ["Bash", "Read", "Grep"],
      allowedToolPatterns: ["Bash(git:*)", "Read", "Grep"],
      license: "Apache-2.0",
      metadata: { author: "someone", version: "1.0" },
    });
  });

  it("merges an allowed-tools list into tools without duplicates", () => {
    // Act
    const result = parse(
      "---\nname: code-review\ndescription: Reviews code\ntools: [file_read, shell_exec]\nallowed-tools: [shell_exec, web_search]\n---\n",
    );

    // Assess
    expect(result.definition?.tools).toEqual(["file_read", "shell_exec", "web_search"]);
  });

  it("loads a name that differs from the directory name under the directory name, warning at the line of name", () => {
    // Act
    const result = parse("---\ndescription: Reviews code\nname: other-skill\n---\n");

    // Assess
    expect(result.definition).toMatchObject({ name: "code-review", title: "other-skill" });
    expect(result.problems[0]).toEqual({
      path: PATH,
      line: 3,
      message: "name: is 'other-skill', not the directory name: the skill is called 'code-review'; 'other-skill' becomes its title",
      severity: "warning",
    });
  });

  it("takes a display name as the title", () => {
    // Act
    const result = parse("---\ndescription: Reviews code\nname: Code Review\n---\n");

    // Assess
    expect(result.definition).toMatchObject({ name: "code-review", title: "Code Review" });
    expect(result.problems.every((p) => p.severity !== "error")).toBe(true);
  });
});

describe("parseSkillDocument: required fields and field messages", () => {
  it("refuses a document without description and without a body paragraph to stand in", () => {
    // Act
    const result = parse("---\ntitle: T\nversion: 1.0.0\n---\n# Heading only\n");

    // Assess
    expect(result.definition).toBeUndefined();
    expect(messages(result)).toEqual(["description: is required"]);
  });

  it.each([
    ["title", "---\ndescription: D\nversion: 1.0.0\n---\n", "title: is absent; the title is 'code-review'"],
    [
      "version",
      "---\ntitle: T\ndescription: D\n---\n",
      "version: is absent (Agent Skills documents have none); the skill reports no version",
    ],
  ])("loads a document without %s, with an info (nothing behaves differently)", (_field, text, message) => {
    // Act
    const result = parse(text);

    // Assess
    expect(result.definition).toBeDefined();
    expect(result.problems).toEqual([{ path: PATH, line: 2, message, severity: "info" }]);
  });

  it("refuses a blank description", () => {
    // Act
    const result = parse("---\ntitle: T\ndescription: '   '\nversion: 1.0.0\n---\n");

    // Assess
    expect(messages(result)).toEqual(["description: must not be blank"]);
  });

  it.each(["1.0", "v1.0.0", "1.0.0.0", "01.0.0", "latest"])(
    "refuses the non-semver version %s in this service's own form (with a title)",
    (version) => {
      // Act
      const result = parse(`---\ntitle: T\ndescription: D\nversion: "${version}"\n---\n`);

      // Assess
      expect(result.problems).toEqual([
        { path: PATH, line: 4, message: "version: must be a semantic version such as 1.0.0", severity: "error" },
      ]);
    },
  );

  it.each(["1.0", "v1.0.0", "latest"])(
    "keeps the non-semver version %s of an Agent Skills document with an info at its line",
    (version) => {
      // Act
      const result = parse(`---\nname: code-review\ndescription: D\nversion: "${version}"\n---\n`);

      // Assess
      expect(result.definition?.version).toBe(version);
      expect(result.problems).toContainEqual({
        path: PATH,
        line: 4,
        message: `version: '${version}' is not a semantic version such as 1.0.0; kept as written`,
        severity: "info",
      });
    },
  );

  it("accepts prerelease and build metadata in the version", () => {
    // Act
    const result = parse("---\ntitle: T\ndescription: D\nversion: 1.0.0-rc.1+build.5\n---\n");

    // Assess
    expect(result.definition?.version).toBe("1.0.0-rc.1+build.5");
  });

  it("refuses a version written as a YAML number in this service's own form, saying what was found", () => {
    // Act
    const result = parse("---\ntitle: T\ndescription: D\nversion: 1.0\n---\n");

    // Assess
    expect(messages(result)).toEqual(["version: expected a string, got a number"]);
  });

  it("reads a version written as a YAML number in an Agent Skills document as its text", () => {
    // Act
    const result = parse("---\nname: code-review\ndescription: D\nversion: 2\n---\n");

    // Assess
    expect(result.definition?.version).toBe("2");
  });

  it("names the field and its allowed values for a bad enum, at the field's line", () => {
    // Prepare
    const text = [
      "---",
      "title: T",
      "description: D",
      "version: 1.0.0",
      "referenceDocs:",
      "  - file: references/a.md",
      "    title: A",
      "  - file: references/b.md",
      "    title: B",
      "    loadMode: LAZY",
      "---",
    ].join("\n");

    // Act
    const result = parse(text);

    // Assess
    expect(result.problems).toEqual([
      { path: PATH, line: 10, message: "referenceDocs[1].loadMode: expected one of INLINE, ON_DEMAND", severity: "error" },
    ]);
  });

  it("reports an unknown field inside a nested object as an error at the key's line", () => {
    // Act
    const result = parse("---\ntitle: T\ndescription: D\nversion: 1.0.0\nrun:\n  target: inline\n  recipie: x\n---\n");

    // Assess
    expect(result.problems).toEqual([{ path: PATH, line: 7, message: "run: unknown field 'recipie'", severity: "error" }]);
  });

  it("names the discriminator of a bad trigger type", () => {
    // Act
    const result = parse("---\ntitle: T\ndescription: D\nversion: 1.0.0\ntriggers:\n  - type: REGEX\n    pattern: x\n---\n");

    // Assess
    expect(result.problems).toEqual([
      { path: PATH, line: 6, message: "triggers[0].type: expected one of PATTERN, KEYWORDS", severity: "error" },
    ]);
  });

  it("describes the alternatives of arguments", () => {
    // Act
    const result = parse("---\ntitle: T\ndescription: D\nversion: 1.0.0\narguments: all\n---\n");

    // Assess
    expect(messages(result)).toEqual(["arguments: expected true or false or a list, got a string"]);
  });

  it("reports a bad entry of an arguments list by its own path", () => {
    // Act
    const result = parse("---\ntitle: T\ndescription: D\nversion: 1.0.0\narguments:\n  - name: ok\n  - name: 2bad\n---\n");

    // Assess
    expect(result.problems).toEqual([
      {
        path: PATH,
        line: 7,
        message: "arguments[1].name: must be an identifier (letters, digits, _; not starting with a digit; at most 64)",
        severity: "error",
      },
    ]);
  });

  it("reports a missing required nested field at its parent's line", () => {
    // Act
    const result = parse("---\ntitle: T\ndescription: D\nversion: 1.0.0\nreferenceDocs:\n  - title: A\n---\n");

    // Assess
    expect(result.problems).toEqual([{ path: PATH, line: 6, message: "referenceDocs[0].file: is required", severity: "error" }]);
  });

  it("warns about an unknown top-level field with its line and still loads", () => {
    // Act
    const result = parse("---\ntitle: T\ndescription: D\nfoo: bar\nversion: 1.0.0\n---\n");

    // Assess
    expect(result.definition).toBeDefined();
    expect(result.problems).toEqual([{ path: PATH, line: 4, message: "unknown field 'foo' (ignored)", severity: "warning" }]);
  });

  it("refuses a frontmatter that is not a mapping", () => {
    // Act
    const result = parse("---\n- a\n- b\n---\n");

    // Assess
    expect(result.problems).toEqual([
      { path: PATH, line: 2, message: "frontmatter must be a mapping of fields (at least a description)", severity: "error" },
    ]);
  });

  it("refuses an empty frontmatter", () => {
    // Act
    const result = parse("---\n---\nbody\n");

    // Assess
    expect(result.definition).toBeUndefined();
    expect(messages(result)).toEqual(["frontmatter must be a mapping of fields (at least a description)"]);
  });

  it.each([
    ["-21risk-automation", "skill name '-21risk-automation': a name may not start with '-'; rename the folder"],
    ["trailing_", "skill name 'trailing_': a name may not end with '_'; rename the folder"],
    ["two__parts", "skill name 'two__parts': a name may not contain '__' (it separates skill and script in tool names); rename the folder"],
    ["has space", "skill name 'has space': a name holds only letters, digits, '_' and '-' (not \" \"); rename the folder"],
    ["x".repeat(65), `skill name '${"x".repeat(65)}': a name has at most 64 characters (this one has 65); rename the folder`],
  ])("refuses the directory name %s, saying the rule and the fix", (name, message) => {
    // Act
    const result = parse(MINIMAL, name);

    // Assess
    expect(result.definition).toBeUndefined();
    expect(messages(result)).toEqual([message]);
  });

  it.each(["zoho_mail-automation", "3d-printing", "PDF-Tools"])(
    "loads the directory name %s with a warning that other hosts may refuse it",
    (name) => {
      // Act
      const result = parse(MINIMAL, name);

      // Assess
      expect(result.definition?.name).toBe(name);
      expect(messages(result)).toEqual(
        name === "3d-printing"
          ? []
          : [
              `skill name '${name}' is not an Agent Skills name (lowercase letters, digits and hyphens); it loads here as it is, other hosts may refuse it`,
            ],
      );
    },
  );
});

describe("parseSkillDocument: hostile input", () => {
  it("refuses a 10 MB document before looking at it", () => {
    // Prepare
    const text = `${MINIMAL}${"x".repeat(10 * 1024 * 1024)}`;

    // Act
    const result = parse(text);

    // Assess
    expect(result.problems).toEqual([{ path: PATH, message: "document is larger than 1048576 bytes", severity: "error" }]);
  });

  it("refuses a frontmatter over 32 KB even when the document is small enough", () => {
    // Prepare
    const text = `---\ntitle: T\ndescription: D\nversion: 1.0.0\ntags:\n${"  - a-tag\n".repeat(4000)}---\n`;

    // Act
    const result = parse(text);

    // Assess
    expect(messages(result)).toEqual(["YAML is larger than 32768 bytes"]);
  });

  it.each([
    ["in the body", `${MINIMAL}text\u0000more`, 6],
    ["in the frontmatter", "---\ntitle: T\u0000\n---\n", 2],
  ])("refuses a NUL character %s", (_where, text, line) => {
    // Act
    const result = parse(text);

    // Assess
    expect(result.definition).toBeUndefined();
    expect(result.problems).toEqual([
      { path: PATH, line, message: "document contains a NUL character: it is not a text file", severity: "error" },
    ]);
  });

  it("refuses a PNG uploaded as SKILL.md", () => {
    // Prepare: the PNG signature and an IHDR header, decoded leniently
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]).toString("latin1");

    // Act
    const result = parse(png);

    // Assess
    expect(result.definition).toBeUndefined();
    expect(errors(result)).toHaveLength(1);
  });

  it("refuses a __proto__ key and returns nothing with a polluted prototype", () => {
    // Act
    const result = parse("---\ntitle: T\ndescription: D\nversion: 1.0.0\n__proto__:\n  polluted: yes\n  enabled: false\n---\n");

    // Assess
    expect(result.definition).toBeUndefined();
    expect(result.problems).toEqual([{ path: PATH, line: 5, message: "the key '__proto__' is not allowed", severity: "error" }]);
    expect(Object.prototype).not.toHaveProperty("polluted");
  });

  it("ignores keys named like Object members as unknown fields, without effect on the result", () => {
    // Act
    const result = parse("---\ntitle: T\ndescription: D\nversion: 1.0.0\nconstructor: x\nhasOwnProperty: y\n---\n");

    // Assess
    expect(result.definition && Object.getPrototypeOf(result.definition)).toBe(Object.prototype);
    expect(result.definition).not.toHaveProperty("constructor", "x");
    expect(messages(result)).toEqual(["unknown field 'constructor' (ignored)", "unknown field 'hasOwnProperty' (ignored)"]);
  });

  it("treats a merge key as an error rather than merging", () => {
    // Act
    const result = parse("---\ntitle: T\ndescription: D\nversion: 1.0.0\n<<: {enabled: false}\n---\n");

    // Assess
    expect(result.definition).toBeUndefined();
    expect(result.problems).toEqual([{ path: PATH, line: 5, message: "YAML merge keys (<<) are not supported", severity: "error" }]);
  });
});

interface BadCase {
  file: string;
  skillName: string;
  error: string;
  line?: number;
}

describe("parseSkillDocument: the bad-input corpus in test/fixtures/skills-bad", () => {
  const dir = new URL("../fixtures/skills-bad/", import.meta.url);
  const manifest = JSON.parse(readFileSync(new URL("manifest.json", dir), "utf8")) as { cases: BadCase[] };

  it("has cases", () => {
    // Assess
    expect(manifest.cases.length).toBeGreaterThan(10);
  });

  it.each(manifest.cases.map((c) => [c.file, c] as const))("refuses %s", (_file, bad) => {
    // Prepare
    const text = readFileSync(new URL(bad.file, dir), "utf8");

    // Act
    const result = parseSkillDocument(bad.skillName, text, `_vance/skills/${bad.skillName}/SKILL.md`);

    // Assess
    expect(result.definition).toBeUndefined();
    const hit = errors(result).find((p) => p.message.includes(bad.error));
    expect(hit, JSON.stringify(result.problems)).toBeDefined();
    if (bad.line !== undefined) expect(hit?.line).toBe(bad.line);
    expect(Object.prototype).not.toHaveProperty("polluted");
  });
});
