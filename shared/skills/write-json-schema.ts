import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { toJSONSchema } from "zod/mini";
import { skillFrontmatterSchemas } from "./skill-frontmatter.js";

/**
 * The published JSON Schema of SKILL.md frontmatter, for editors (e.g. yaml-language-server).
 * Derived from the zod schema so the two cannot drift; a unit test compares the committed file.
 */

export const SKILL_FRONTMATTER_SCHEMA_FILE = "schema/skill-frontmatter.schema.json";

export function skillFrontmatterJsonSchema(): Record<string, unknown> {
  // "input": what an author writes, so fields with defaults are optional.
  const generated = toJSONSchema(skillFrontmatterSchemas().SkillFrontmatter, { io: "input", target: "draft-2020-12" }) as Record<
    string,
    unknown
  >;
  const { $schema, ...rest } = generated;
  return {
    $schema,
    title: "SKILL.md frontmatter",
    description:
      "YAML frontmatter of _vance/skills/<name>/SKILL.md: this service's fields and the Agent Skills / Claude Code ones. The skill is called by its directory name. Unknown fields, a missing title or version and a description over 1 024 characters load with a warning.",
    ...rest,
  };
}

export const renderSkillFrontmatterJsonSchema = (): string => `${JSON.stringify(skillFrontmatterJsonSchema(), null, 2)}\n`;

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
  const target = resolve(root, SKILL_FRONTMATTER_SCHEMA_FILE);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, renderSkillFrontmatterJsonSchema());
  console.log(`wrote ${SKILL_FRONTMATTER_SCHEMA_FILE}`);
}
