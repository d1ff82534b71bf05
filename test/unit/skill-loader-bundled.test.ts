import { describe, expect, it } from "vitest";
import { BundledDocumentLayer } from "../../shared/documents/bundled-document-layer.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";

const SCOPE = { tenantId: "acme", userId: "bob", projectId: "web" };

/** The skills shipped in shared/bundled must all load cleanly: a broken one would be invisible in production. */
describe("bundled RESOURCE skills", () => {
  const loader = new SkillLoader({ store: new InMemoryDocumentStore(), bundled: new BundledDocumentLayer() });

  it("all load without problems or warnings", async () => {
    // Act
    const skills = await loader.listAvailable(SCOPE);
    const problems = await loader.problems(SCOPE);

    // Assess
    expect(problems).toEqual([]);
    expect(skills.map((s) => s.name)).toEqual(["code-guard", "code-review", "typescript-style"]);
    for (const skill of skills) {
      expect(skill.source).toBe("RESOURCE");
      expect(skill.warnings).toEqual([]);
      expect(skill.version).toMatch(/^\d+\.\d+\.\d+$/);
    }
  });

  it("code-review embeds its checklist and patterns from the bundle", async () => {
    // Act
    const skill = await loader.load(SCOPE, "code-review");

    // Assess
    expect(skill?.title).toBe("Code Review");
    expect(skill?.tools).toEqual(["file_read", "shell_exec"]);
    expect(skill?.triggers.length).toBeGreaterThan(0);
    expect(skill?.referenceDocs.map((d) => [d.file, d.loadMode])).toEqual([
      ["references/checklist.md", "INLINE"],
      ["references/patterns.md", "INLINE"],
    ]);
    expect(skill?.referenceDocs[0]?.content).toMatch(/^# Review Checklist/);
    expect(skill?.referenceDocs[1]?.content).toMatch(/^# Common Patterns/);
    expect(skill?.body).toMatch(/code review mode/i);
  });

  it("code-guard is a pure control-plane skill: empty body, guard on activate, guard clear on deactivate", async () => {
    // Act
    const skill = await loader.load(SCOPE, "code-guard");

    // Assess
    expect(skill?.body.trim()).toBe("");
    expect(skill?.lifecycle).toBe("sticky");
    expect(skill?.activate).toHaveLength(1);
    expect(skill?.activate[0]).toMatch(/^guard inline\n/);
    expect(skill?.activate[0]).toContain("vance.guard.continueWith(");
    expect(skill?.deactivate).toEqual(["guard clear"]);
  });
});
