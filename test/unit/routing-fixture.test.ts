import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSkillDocument } from "../../shared/skills/skill-document-parser.js";
import { BUNDLED, fixtureSkills, requestsYaml } from "../fixtures/routing/generate.js";
import { loadRoutingRequests } from "../e2e/support/routing-score.js";

/**
 * The routing fixture (issue 26) as committed is what its generator writes, every SKILL.md
 * parses, and the requests meet the minimums with names that exist.
 */

const FIXTURE = join(import.meta.dirname, "..", "fixtures", "routing");

describe("the routing fixture", () => {
  it("is exactly what generate.ts writes, skill for skill and byte for byte", () => {
    // Prepare
    const generated = fixtureSkills();

    // Act
    const committed = readdirSync(join(FIXTURE, "skills")).sort();

    // Assess
    expect(committed).toEqual([...generated.keys()]);
    for (const [name, text] of generated) expect(readFileSync(join(FIXTURE, "skills", name, "SKILL.md"), "utf8"), name).toBe(text);
    expect(readFileSync(join(FIXTURE, "requests.yaml"), "utf8")).toBe(requestsYaml(new Set(generated.keys())));
  });

  it("has at least 300 skills that parse without errors, within 3 MB, most of them near-identical product automations", () => {
    // Prepare
    const skills = fixtureSkills();

    // Act
    const errors = [...skills].flatMap(([name, text]) => {
      const parsed = parseSkillDocument(name, text, `_vance/skills/${name}/SKILL.md`);
      return parsed.problems.filter((p) => p.severity === "error").map((p) => `${name}: ${p.message}`);
    });
    const bytes = [...skills.values()].reduce((sum, text) => sum + Buffer.byteLength(text), 0);

    // Assess
    expect(errors).toEqual([]);
    expect(skills.size).toBeGreaterThanOrEqual(300);
    expect(bytes).toBeLessThan(3 * 1024 * 1024);
    expect([...skills.keys()].filter((name) => name.endsWith("-automation")).length).toBeGreaterThan(skills.size / 2);
    expect(["pdf", "docx", "xlsx", "pptx"].every((name) => skills.has(name))).toBe(true);
  });

  it("has at least 150 requests that expect a skill, small talk that expects none, and only names that exist", () => {
    // Prepare
    const names = new Set(fixtureSkills().keys());

    // Act
    const requests = loadRoutingRequests(join(FIXTURE, "requests.yaml"));

    // Assess
    expect(requests.filter((r) => r.expect.length > 0).length).toBeGreaterThanOrEqual(150);
    expect(requests.filter((r) => r.kind === "smalltalk").every((r) => r.expect.length === 0 && !r.namesProduct)).toBe(true);
    expect(requests.filter((r) => r.kind === "smalltalk").length).toBeGreaterThanOrEqual(10);
    expect(requests.flatMap((r) => r.expect).filter((name) => !names.has(name) && !BUNDLED.has(name))).toEqual([]);
    expect(new Set(requests.map((r) => r.message)).size).toBe(requests.length);
  });
});
