import * as z from "zod";
import { MAX_TRIGGERS_PER_SKILL } from "./triggers/trigger-caps.js";

/**
 * The one schema of SKILL.md frontmatter (spec §2, §2a, §2b, §2c, §13.1, §13.7) plus the
 * Agent Skills fields (`name`, `allowed-tools`, `license`, `metadata`). Types and the
 * published JSON Schema are derived from it; cross-field rules live in skill-validator.ts.
 */

export const SKILL_NAME_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
// semver 2.0.0, from semver.org
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

const shortText = (max: number) => z.string().max(max);
const NOT_BLANK = /\S/;
const requiredText = (max: number) => z.string().min(1).max(max).regex(NOT_BLANK, "must not be blank");

const ArgumentType = z.enum(["string", "number", "integer", "boolean", "object", "array"]);

/** SkillArgument and scripts[].params share this one schema (spec §2b, §13.7). */
export const SkillArgument = z.strictObject({
  name: z
    .string()
    .regex(IDENTIFIER, "must be an identifier (letters, digits, _; not starting with a digit; at most 64)")
    .describe("Variable name in the template ({{ args.<name> }}) or the script's args key"),
  type: ArgumentType.default("string"),
  description: shortText(1024).optional(),
  required: z.boolean().default(false).describe("If the token is missing, activation fails"),
});

export const SkillTrigger = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("PATTERN"),
    pattern: z.string().min(1).max(1000).describe("Java-style regex, matched case-insensitively with RE2 semantics"),
  }),
  z.strictObject({
    type: z.literal("KEYWORDS"),
    keywords: z.array(z.string().min(1).max(200)).min(1).max(100),
  }),
]);

export const SkillReferenceDoc = z.strictObject({
  title: requiredText(200),
  file: z.string().min(1).max(512).describe("Path relative to the skill directory, e.g. references/checklist.md"),
  summary: shortText(500).optional(),
  loadMode: z.enum(["INLINE", "ON_DEMAND"]).default("INLINE"),
});

export const SkillRun = z.strictObject({
  target: z.enum(["inline", "spawn"]).default("inline"),
  recipe: z
    .string()
    .regex(SKILL_NAME_PATTERN, "must be a recipe name (lowercase letters, digits, hyphens)")
    .optional()
    .describe("Recipe of the spawned worker; required for target: spawn"),
  inherit: z.string().max(64).optional().describe("Like the recipe param inheritContext; default none for spawn"),
});

export const SkillScript = z.strictObject({
  name: z.string().regex(SKILL_NAME_PATTERN, "must be lowercase letters, digits and hyphens"),
  target: z.enum(["BRAIN", "FOOT"]).default("BRAIN"),
  file: z.string().min(1).max(512).describe("Path relative to the skill directory, e.g. scripts/fetch-diff.js"),
  description: shortText(1024).optional(),
  params: z.array(SkillArgument).max(64).optional(),
});

const commandList = z.array(z.string().min(1).max(64 * 1024)).max(64);

export const SkillFrontmatter = z.object({
  title: requiredText(200).optional().describe("Display name; required unless the Agent Skills `name` is given"),
  description: requiredText(1024).describe("One line: what the skill does (auto-trigger matching, UI, skill selection)"),
  version: z
    .string()
    .regex(SEMVER, "must be a semantic version such as 1.0.0")
    .optional()
    .describe("Semantic version; required unless the Agent Skills `name` is given (then 0.0.0)"),
  triggers: z.array(SkillTrigger).max(MAX_TRIGGERS_PER_SKILL).optional().describe("Auto-activation conditions; empty = explicit activation only"),
  tools: z.array(z.string().min(1).max(128)).max(200).optional().describe("Tool names added to the whitelist while active"),
  manualPaths: z
    .array(z.string().min(1).max(512))
    .max(50)
    .optional()
    .describe("Folders (relative to the document root) added to manual_read/manual_list while active"),
  referenceDocs: z.array(SkillReferenceDoc).max(50).optional(),
  tags: z.array(z.string().min(1).max(64)).max(50).optional(),
  enabled: z.boolean().default(true),
  lifecycle: z.enum(["sticky", "shot"]).default("sticky"),
  run: SkillRun.optional().describe("Where the activation takes effect: inline (default) or a spawned worker"),
  arguments: z
    .union([z.boolean(), z.array(SkillArgument).max(32)])
    .optional()
    .describe("true: consume the rest of the /skill line as args.text; a list: bind named arguments"),
  activate: commandList.optional().describe("Engine commands fired once on activation"),
  deactivate: commandList.optional().describe("Engine commands fired once on clear (never for lifecycle: shot)"),
  action: z.string().max(64 * 1024).optional().describe("Turn prompt fired once on fresh activation"),
  scripts: z.array(SkillScript).max(32).optional(),
  // Agent Skills (agentskills.io) compatibility
  name: z
    .string()
    .regex(SKILL_NAME_PATTERN, "must be lowercase letters, digits and hyphens (at most 64)")
    .optional()
    .describe("Agent Skills name; must equal the skill's directory name"),
  "allowed-tools": z
    .union([z.string().max(4096), z.array(z.string().min(1).max(128)).max(200)])
    .optional()
    .describe("Agent Skills tool list (space-separated string or list); merged into tools"),
  license: z.string().max(1024).optional(),
  metadata: z.record(z.string().max(128), z.string().max(4096)).optional(),
});

export type SkillArgument = z.infer<typeof SkillArgument>;
export type SkillTrigger = z.infer<typeof SkillTrigger>;
export type SkillReferenceDoc = z.infer<typeof SkillReferenceDoc>;
export type SkillRun = z.infer<typeof SkillRun>;
export type SkillScript = z.infer<typeof SkillScript>;
export type SkillFrontmatterInput = z.input<typeof SkillFrontmatter>;
export type SkillFrontmatterParsed = z.infer<typeof SkillFrontmatter>;

/** Field names the schema knows; anything else in a document is a warning, not an error. */
export const KNOWN_FRONTMATTER_FIELDS: ReadonlySet<string> = new Set(Object.keys(SkillFrontmatter.shape));

/** Agent Skills `allowed-tools` is a space-separated string or a list; both become a list. */
export function allowedToolNames(value: string | readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  return typeof value === "string" ? value.split(/\s+/).filter((name) => name !== "") : [...value];
}
