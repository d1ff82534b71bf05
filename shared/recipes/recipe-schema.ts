import * as z from "zod/mini";
import "../../contract/locale.js";
import { SKILL_NAME_PATTERN } from "../skills/skill-frontmatter.js";
import { SKILL_DIRECTORY_NAME } from "../skills/skill-name.js";
import type { DocumentProblem } from "../errors.js";
import { MAX_CATALOG_BUDGET_CHARS } from "../skills/skill-catalog.js";
import type { SkillScope } from "../documents/cascade-scope.js";

/**
 * The one schema of `_vance/recipes/<name>.yaml` (spec §1, §7; recipes §6c as far as skills need it).
 * Structural only: rules across fields (known engine, `defaultActiveSkills ⊆ allowedSkills`,
 * manual path sanitizing) are checked by recipe-document-parser.ts, which knows the lines.
 */
const skillName = z
  .string()
  .check(z.regex(SKILL_DIRECTORY_NAME, "must be a skill name (letters, digits, '_' and '-'; a letter or digit at both ends; at most 64)"));
const toolName = z.string().check(
  z.minLength(1),
  z.maxLength(128),
  // eslint-disable-next-line no-control-regex
  z.regex(/^[^\u0000-\u001f\u007f-\u009f]+$/, "must not contain control characters"),
);
/** A document version id as the versions API hands it out (S3 ids are 32 URL-safe characters). */
export const VERSION_ID_PATTERN = /^[\x21-\x7e]{1,1024}$/;
const versionId = z.string().check(z.regex(VERSION_ID_PATTERN, "must be a versionId (1 to 1024 printable ASCII characters)"));
export const MAX_SKILL_VERSION_PINS = 50;

const RecipeParams = z.catchall(
  z.object({
    manualPaths: z
      .optional(z.array(z.string().check(z.minLength(1), z.maxLength(512))).check(z.maxLength(50)))
      .check(z.describe("Folders added to manual_read/manual_list; they take precedence over skill paths")),
    inheritContext: z
      .optional(z.string().check(z.maxLength(64)))
      .check(z.describe("none: a spawned worker starts without the caller's chat history")),
  }),
  z.union([
    z.string().check(z.maxLength(4096)),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(z.string().check(z.maxLength(4096))).check(z.maxLength(100)),
  ]),
);

export const RecipeDocument = z.strictObject({
  engine: z
    .string()
    .check(z.regex(SKILL_NAME_PATTERN, "must be an engine name"), z.describe("Engine that runs the process: ford, arthur, frankie")),
  description: z._default(z.string().check(z.maxLength(1024)), ""),
  promptPrefix: z
    ._default(z.string().check(z.maxLength(64 * 1024)), "")
    .check(z.describe("Template appended to (or replacing) the engine's system prompt")),
  promptMode: z._default(z.enum(["APPEND", "OVERWRITE"]), "APPEND"),
  allowedToolsAdd: z._default(z.array(toolName).check(z.maxLength(200)), []),
  allowedToolsRemove: z._default(z.array(toolName).check(z.maxLength(200)), []),
  defaultActiveSkills: z
    ._default(z.array(skillName).check(z.maxLength(50)), [])
    .check(z.describe("Skills active (sticky, fromRecipe) on every spawned process")),
  /** null (or absent) = no restriction; [] = lockdown (spec §7b). */
  allowedSkills: z
    ._default(z.nullable(z.array(skillName).check(z.maxLength(500))), null)
    .check(z.describe("Skill whitelist: null = any skill, [] = none")),
  locked: z._default(z.boolean(), false).check(z.describe("true: the recipe's own skills cannot be cleared")),
  catalogBudgetChars: z
    .optional(z.number().check(z.int(), z.gte(0), z.lte(MAX_CATALOG_BUDGET_CHARS)))
    .check(z.describe("Characters of the skill catalog the model sees (default: the engine's, 8000); 0 = no catalog")),
  catalogPinned: z
    .optional(z.array(skillName).check(z.maxLength(50)))
    .check(z.describe("Skills listed first in the catalog, in this order")),
  skillVersions: z
    .optional(
      z
        .record(skillName, versionId)
        .check(z.refine((pins) => Object.keys(pins).length <= MAX_SKILL_VERSION_PINS, `at most ${MAX_SKILL_VERSION_PINS} pinned skills`)),
    )
    .check(z.describe("Skills pinned to one version of their SKILL.md (a versionId of the level the skill resolves from)")),
  params: z._default(RecipeParams, {}),
});

export type RecipeDocument = z.infer<typeof RecipeDocument>;

/** A recipe as the cascade resolved it: the document plus its name and origin. */
export interface Recipe extends RecipeDocument {
  name: string;
  source: SkillScope;
  location: { source: SkillScope; project: string; etag?: string | undefined };
  /** Non-fatal findings (e.g. a default skill listed twice). */
  warnings: DocumentProblem[];
}

/** The parsed document before it is placed in the cascade. */
export type RecipeDefinition = RecipeDocument & { name: string };
