import { describe, expect, it } from "vitest";
import { lintSkillMarkdown } from "../../console/src/frontmatter-lint.js";

/** The console editor's live check of a SKILL.md's frontmatter against the published JSON Schema. */
describe("console frontmatter lint", () => {
  it("finds nothing wrong with a valid SKILL.md, Agent Skills or trigger-bearing", () => {
    // Act
    const agentSkill = lintSkillMarkdown("---\nname: pdf\ndescription: Reads PDFs.\n---\nBody.\n");
    const triggered = lintSkillMarkdown(
      "---\nname: deploy\ndescription: Deploys.\ntriggers:\n  - type: KEYWORDS\n    keywords: [deploy]\n---\nBody.\n",
    );

    // Assess
    expect(agentSkill).toEqual([]);
    expect(triggered).toEqual([]);
  });

  it("puts a schema problem on the line of the field that causes it", () => {
    // Act
    const problems = lintSkillMarkdown("---\nname: deploy\ndescription: Deploys.\nenabled: maybe\n---\nBody.\n");

    // Assess
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ line: 4, severity: "error", message: expect.stringMatching(/^enabled: /) });
  });

  it("reports a broken trigger by its first branch's issue at the trigger's line", () => {
    // Act
    const problems = lintSkillMarkdown("---\nname: deploy\ndescription: Deploys.\ntriggers:\n  - type: KEYWORDS\n    keywords: 7\n---\n");

    // Assess
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]!.message).toMatch(/^triggers\.0/);
    expect(problems[0]!.line).toBeGreaterThanOrEqual(5);
  });

  it("says where a YAML syntax error is, and refuses a document without its fences", () => {
    // Act
    const syntax = lintSkillMarkdown("---\nname: deploy\ndescription: [unclosed\n---\n");
    const noFence = lintSkillMarkdown("name: deploy\n");
    const unclosed = lintSkillMarkdown("---\nname: deploy\n");

    // Assess
    expect(syntax[0]).toMatchObject({ severity: "error" });
    expect(syntax[0]!.line).toBeGreaterThanOrEqual(3);
    expect(noFence).toEqual([{ line: 1, severity: "error", message: "A SKILL.md starts with a '---' line opening its YAML frontmatter" }]);
    expect(unclosed).toEqual([{ line: 1, severity: "error", message: "The frontmatter has no closing '---' line" }]);
  });

  it("puts an unclosed flow collection on the line of its bracket, not the line after", () => {
    // Act
    const sequence = lintSkillMarkdown("---\nname: deploy\ndescription: Deploys.\ntags: [a, b\nlicense: MIT\n---\nBody.\n");
    const nested = lintSkillMarkdown("---\nname: deploy\nmetadata: {a: [1, 2], b: 3\ndescription: Deploys.\n---\n");
    const spanning = lintSkillMarkdown("---\nname: deploy\ntags: [a,\n  b\ndescription: Deploys.\n---\n");

    // Assess
    expect(sequence).toEqual([{ line: 4, severity: "error", message: expect.stringMatching(/^Flow sequence/) }]);
    expect(nested[0]).toMatchObject({ line: 3, message: expect.stringMatching(/^Flow map/) });
    expect(spanning[0]).toMatchObject({ line: 3 });
  });
});
