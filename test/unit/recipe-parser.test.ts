import { describe, expect, it } from "vitest";
import { MAX_RECIPE_BYTES, parseRecipeDocument } from "../../shared/recipes/recipe-document-parser.js";

const PATH = "_vance/recipes/analyze.yaml";
const parse = (text: string, name = "analyze") => parseRecipeDocument(name, text, PATH);
const errors = (result: ReturnType<typeof parse>) => result.problems.filter((p) => p.severity === "error");

describe("parseRecipeDocument: valid recipes", () => {
  it("applies every default to a recipe that only names its engine", () => {
    // Act
    const result = parse("engine: ford\n");

    // Assess
    expect(result.problems).toEqual([]);
    expect(result.recipe).toEqual({
      name: "analyze",
      engine: "ford",
      description: "",
      promptPrefix: "",
      promptMode: "APPEND",
      allowedToolsAdd: [],
      allowedToolsRemove: [],
      defaultActiveSkills: [],
      allowedSkills: null,
      locked: false,
      params: {},
    });
  });

  it("keeps every field as written", () => {
    // Prepare
    const text = [
      "engine: arthur",
      "description: Analysis",
      "promptPrefix: |",
      "  Prefer evidence.",
      "promptMode: OVERWRITE",
      "allowedToolsAdd: [shell_exec]",
      "allowedToolsRemove: [web_search]",
      "defaultActiveSkills: [typescript-style]",
      "allowedSkills: [code-review, typescript-style]",
      "locked: true",
      "params:",
      "  inheritContext: none",
      "  manualPaths: ['\\docs\\guides/', 'manuals']",
      "  maxTurns: 5",
      "",
    ].join("\n");

    // Act
    const result = parse(text);

    // Assess
    expect(result.problems).toEqual([]);
    expect(result.recipe).toEqual({
      name: "analyze",
      engine: "arthur",
      description: "Analysis",
      promptPrefix: "Prefer evidence.\n",
      promptMode: "OVERWRITE",
      allowedToolsAdd: ["shell_exec"],
      allowedToolsRemove: ["web_search"],
      defaultActiveSkills: ["typescript-style"],
      allowedSkills: ["code-review", "typescript-style"],
      locked: true,
      // Manual paths are sanitized like a skill's (backslashes → '/', no leading or trailing '/').
      params: { inheritContext: "none", manualPaths: ["docs/guides", "manuals"], maxTurns: 5 },
    });
  });

  it("keeps an empty allowedSkills list as lockdown and an explicit null as no restriction", () => {
    // Act
    const lockdown = parse("engine: ford\nallowedSkills: []\n");
    const open = parse("engine: ford\nallowedSkills: null\n");

    // Assess
    expect(lockdown.recipe?.allowedSkills).toEqual([]);
    expect(open.recipe?.allowedSkills).toBeNull();
  });

  it("warns about a default skill listed twice and keeps it once", () => {
    // Act
    const result = parse("engine: ford\ndefaultActiveSkills:\n  - code-review\n  - code-review\n");

    // Assess
    expect(result.recipe?.defaultActiveSkills).toEqual(["code-review"]);
    expect(result.problems).toEqual([
      { path: PATH, line: 4, message: "defaultActiveSkills[1]: 'code-review' is listed twice (ignored)", severity: "warning" },
    ]);
  });
});

describe("parseRecipeDocument: invalid recipes", () => {
  it("refuses a default skill outside allowedSkills, naming the entry and its line (spec §7a)", () => {
    // Act
    const result = parse("engine: ford\nallowedSkills: [code-review]\ndefaultActiveSkills:\n  - code-review\n  - typescript-style\n");

    // Assess
    expect(result.recipe).toBeUndefined();
    expect(errors(result)).toEqual([
      {
        path: PATH,
        line: 5,
        message: "defaultActiveSkills[1]: 'typescript-style' is not in allowedSkills (default skills must be allowed skills)",
        severity: "error",
      },
    ]);
  });

  it("refuses any default skill under lockdown", () => {
    // Act
    const result = parse("engine: ford\nallowedSkills: []\ndefaultActiveSkills: [code-review]\n");

    // Assess
    expect(errors(result).map((p) => p.message)).toEqual([
      "defaultActiveSkills[0]: 'code-review' is not in allowedSkills (default skills must be allowed skills)",
    ]);
  });

  it("refuses an unknown engine and lists the known ones", () => {
    // Act
    const result = parse("description: x\nengine: marvin\n");

    // Assess
    expect(errors(result)).toEqual([
      { path: PATH, line: 2, message: "engine: unknown engine 'marvin' (known: ford, arthur, frankie)", severity: "error" },
    ]);
  });

  it.each([
    ["a missing engine", "description: x\n", "engine: is required", 1],
    ["an unknown field", "engine: ford\nskills: [a]\n", "unknown field 'skills'", 2],
    ["a bad promptMode", "engine: ford\npromptMode: PREPEND\n", "promptMode: expected one of APPEND, OVERWRITE", 2],
    ["a non-boolean locked", "engine: ford\nlocked: 'yes'\n", "locked: expected true or false, got a string", 2],
    [
      "a bad skill name",
      "engine: ford\nallowedSkills: [Code Review]\n",
      "allowedSkills[0]: must be a skill name (letters, digits, '_' and '-'; a letter or digit at both ends; at most 64)",
      2,
    ],
    ["a tool list that is a string", "engine: ford\nallowedToolsAdd: shell_exec\n", "allowedToolsAdd: expected a list, got a string", 2],
    [
      "an escaping manual path",
      "engine: ford\nparams:\n  manualPaths: ['../secrets']\n",
      "params.manualPaths[0]: must not contain '..' (it would leave the document root)",
      3,
    ],
    [
      "a nested object in params",
      "engine: ford\nparams:\n  x: {a: 1}\n",
      "params.x: expected a string or a number or true or false or null or a list, got a mapping",
      3,
    ],
  ])("refuses %s with a field message at its line", (_case, text, message, line) => {
    // Act
    const result = parse(text);

    // Assess
    expect(result.recipe).toBeUndefined();
    expect(errors(result)).toEqual([{ path: PATH, line, message, severity: "error" }]);
  });

  it.each([
    ["bad YAML", "engine: ford\n  bad: [\n", /^invalid YAML/],
    ["an alias", "a: &x ford\nengine: *x\n", /aliases|anchors/],
    ["a custom tag", "engine: !!js/function ford\n", /tag/],
    ["a __proto__ key", "engine: ford\n__proto__: {locked: true}\n", /__proto__/],
    ["a scalar document", "ford\n", /must be a mapping/],
    ["an empty document", "", /must be a mapping/],
  ])("refuses %s", (_case, text, message) => {
    // Act
    const result = parse(text);

    // Assess
    expect(result.recipe).toBeUndefined();
    expect(
      errors(result)
        .map((p) => p.message)
        .join("\n"),
    ).toMatch(message);
  });

  it("refuses a recipe name that is not a skill-style name", () => {
    // Act
    const result = parse("engine: ford\n", "Bad_Name");

    // Assess
    expect(result.recipe).toBeUndefined();
    expect(errors(result)[0]?.message).toMatch(/recipe name 'Bad_Name' must be lowercase/);
  });

  it("refuses a document larger than the limit before parsing it", () => {
    // Act
    const result = parse(`engine: ford\ndescription: "${"x".repeat(MAX_RECIPE_BYTES)}"\n`);

    // Assess
    expect(errors(result)).toEqual([{ path: PATH, message: `document is larger than ${MAX_RECIPE_BYTES} bytes`, severity: "error" }]);
  });
});
