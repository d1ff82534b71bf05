import { describe, expect, it } from "vitest";
import { argumentLine, completeSkillCommand, parseSkillCommand, skillBlocks } from "../../console/src/skill-command.js";

describe("the console's /skill line", () => {
  it.each([
    ["/skill code-review", { skillName: "code-review", oneShot: false }],
    ["/skill code-review src/ HEAD~3", { skillName: "code-review", args: "src/ HEAD~3", oneShot: false }],
    ["  /skill lint --once  ", { skillName: "lint", oneShot: true }],
    ["/skill lint a b --once", { skillName: "lint", args: "a b", oneShot: true }],
    ["/skill lint --once a", { skillName: "lint", args: "--once a", oneShot: false }],
  ])("reads %j as %j", (line, expected) => {
    // Act
    const parsed = parseSkillCommand(line);

    // Assess
    expect(parsed).toEqual(expected);
  });

  it.each(["/skill", "/skill   ", "skill lint", "/skills lint"])("refuses %j with the grammar", (line) => {
    // Act
    const parsed = parseSkillCommand(line);

    // Assess
    expect(parsed).toEqual({ error: expect.stringContaining("/skill <name>") });
  });

  it("completes skill names after /skill and nothing else", () => {
    // Prepare
    const names = ["code-review", "commit-msg", "lint"];

    // Act
    const afterCo = completeSkillCommand("/skill co", names);
    const afterSlash = completeSkillCommand("/sk", names);
    const plain = completeSkillCommand("hello", names);
    const afterArgs = completeSkillCommand("/skill lint src/", names);

    // Assess
    expect(afterCo).toEqual(["/skill code-review", "/skill commit-msg"]);
    expect(afterSlash).toEqual(names.map((n) => `/skill ${n}`));
    expect(plain).toEqual([]);
    expect(afterArgs).toEqual([]);
  });
});

describe("the console's argument form", () => {
  const declared = [
    { name: "path", type: "string", required: true },
    { name: "depth", type: "integer", required: false },
    { name: "note", type: "string", required: false },
  ];

  it("joins the fields in declared order, the last string argument keeping its spaces", () => {
    // Act
    const built = argumentLine(declared, { path: "src/", depth: "3", note: "look at the tests" });

    // Assess
    expect(built).toEqual({ line: "src/ 3 look at the tests" });
  });

  it("stops at the first empty field rather than shifting later values into it", () => {
    // Act
    const built = argumentLine(declared, { path: "src/", depth: "", note: "ignored" });

    // Assess
    expect(built).toEqual({ line: "src/" });
  });

  it("refuses a value with spaces in an argument that takes one word", () => {
    // Act
    const built = argumentLine(declared, { path: "my src", depth: "3" });

    // Assess
    expect(built).toEqual({ error: expect.stringContaining("'path' is one word") });
  });
});

describe("skill blocks of a composed section", () => {
  it("splits at the composer's headers and counts each block's characters", () => {
    // Prepare
    const section = "--- Skill: a ---\nfirst body\n\n--- Skill: b ---\nsecond\n";

    // Act
    const blocks = skillBlocks(section);

    // Assess
    expect(blocks).toEqual([
      { name: "a", chars: "--- Skill: a ---\nfirst body".length },
      { name: "b", chars: "--- Skill: b ---\nsecond".length },
    ]);
  });

  it("finds no block in text without a header", () => {
    // Act
    const blocks = skillBlocks("no skills here");

    // Assess
    expect(blocks).toEqual([]);
  });
});
