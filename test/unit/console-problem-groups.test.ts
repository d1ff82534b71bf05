import { describe, expect, it } from "vitest";
import type { SkillProblem } from "../../client/index.js";
import { groupProblems, ruleOf, severityCounts } from "../../console/src/problem-groups.js";

/** The console's problems list: grouped by rule, errors first, `info` last. */

const problem = (name: string, message: string, severity?: SkillProblem["severity"]): SkillProblem => ({
  name,
  source: "PROJECT",
  path: `_vance/skills/${name}/SKILL.md`,
  message,
  ...(severity ? { severity } : {}),
});

describe("ruleOf", () => {
  it.each([
    ["title: is absent; the title is 'pdf'", "title: is absent"],
    ["field 'model' (Claude Code) is not used by this service (ignored)", "field '…' (Claude Code) is not used by this service (ignored)"],
    [
      "shadowed by the PROJECT level's skill of the same name (_vance/skills/a/SKILL.md)",
      "shadowed by the PROJECT level's skill of the same name (…)",
    ],
    ["description: is 1500 characters, over 1024", "description: is N characters, over N"],
  ])("%j → %j", (message, rule) => {
    // Act
    const result = ruleOf(message);

    // Assess
    expect(result).toBe(rule);
  });
});

describe("groupProblems", () => {
  it("groups the same rule across skills, errors first, then by size, infos last", () => {
    // Prepare
    const problems = [
      problem("a", "title: is absent; the title is 'a'", "warning"),
      problem("b", "title: is absent; the title is 'b'", "warning"),
      problem("c", "shadowed by the VANCE level's skill of the same name (_vance/skills/c/SKILL.md)", "info"),
      problem("d", "version: is absent (Agent Skills documents have none); the skill reports no version", "warning"),
      problem("e", "missing frontmatter: the first line must be '---'"),
    ];

    // Act
    const groups = groupProblems(problems);
    const counts = severityCounts(problems);

    // Assess
    expect(groups.map((group) => [group.severity, group.rule, group.problems.map((p) => p.name)])).toEqual([
      ["error", "missing frontmatter: the first line must be '…'", ["e"]],
      ["warning", "title: is absent", ["a", "b"]],
      ["warning", "version: is absent (Agent Skills documents have none)", ["d"]],
      ["info", "shadowed by the VANCE level's skill of the same name (…)", ["c"]],
    ]);
    expect(counts).toEqual({ error: 1, warning: 3, info: 1 });
  });
});
