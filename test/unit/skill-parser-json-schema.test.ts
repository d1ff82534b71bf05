import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  SKILL_FRONTMATTER_SCHEMA_FILE,
  renderSkillFrontmatterJsonSchema,
  skillFrontmatterJsonSchema,
} from "../../shared/skills/write-json-schema.js";
import { skillFrontmatterSchemas } from "../../shared/skills/skill-frontmatter.js";

describe("published JSON Schema of SKILL.md frontmatter", () => {
  it("is committed exactly as `npm run schema` generates it from the zod schema", () => {
    // Prepare
    const committed = readFileSync(new URL(`../../${SKILL_FRONTMATTER_SCHEMA_FILE}`, import.meta.url), "utf8");

    // Act
    const generated = renderSkillFrontmatterJsonSchema();

    // Assess
    expect(committed).toBe(generated);
  });

  it("describes every known field and the input-side requirements", () => {
    // Act
    const schema = skillFrontmatterJsonSchema() as { properties: Record<string, unknown>; required: string[]; anyOf: unknown[] };

    // Assess
    expect(Object.keys(schema.properties).sort()).toEqual([...skillFrontmatterSchemas().knownFields].sort());
    // fields with defaults (enabled, lifecycle) are optional for an author
    expect(schema.required).toEqual(["description"]);
    // Agent Skills documents have neither title nor version: both optional (a warning when absent)
    expect(schema.anyOf).toBeUndefined();
  });
});
