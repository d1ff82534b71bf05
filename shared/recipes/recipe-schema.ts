import { z } from "zod";
import { SKILL_NAME_PATTERN } from "../skills/skill-frontmatter.js";

/** The one schema of `_vance/recipes/<name>.yaml` (spec §1, §7; recipes §6c as far as skills need it). */
const skillName = z.string().regex(SKILL_NAME_PATTERN, "must be a skill name (lowercase letters, digits, hyphens)");
const toolName = z.string().min(1).max(128);

export const RecipeParams = z
  .object({
    manualPaths: z.array(z.string().min(1).max(512)).max(50).optional(),
    inheritContext: z.string().max(64).optional(),
  })
  .catchall(z.union([z.string().max(4096), z.number(), z.boolean(), z.null(), z.array(z.string().max(4096)).max(100)]));

export const RecipeDocument = z.strictObject({
  engine: z.string().regex(SKILL_NAME_PATTERN, "must be an engine name"),
  description: z.string().max(1024).default(""),
  promptPrefix: z.string().max(64 * 1024).default(""),
  promptMode: z.enum(["APPEND", "OVERWRITE"]).default("APPEND"),
  allowedToolsAdd: z.array(toolName).max(200).default([]),
  allowedToolsRemove: z.array(toolName).max(200).default([]),
  defaultActiveSkills: z.array(skillName).max(50).default([]),
  /** null (or absent) = no restriction; [] = lockdown (spec §7b). */
  allowedSkills: z.array(skillName).max(500).nullable().default(null),
  locked: z.boolean().default(false),
  params: RecipeParams.default({}),
});

export type RecipeDocument = z.infer<typeof RecipeDocument>;

export interface Recipe extends RecipeDocument {
  name: string;
  source: "USER" | "PROJECT" | "VANCE" | "RESOURCE";
}
