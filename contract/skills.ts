import * as z from "zod/mini";
import "./locale.js";
import { SkillSource } from "./common.js";

/**
 * The skill answers of API.md "Skills". Objects are open (`looseObject`): the service may add
 * fields, API.md says additive is allowed, so a client does not break on one.
 */

export const SkillTrigger = z.discriminatedUnion("type", [
  z.looseObject({
    type: z.literal("PATTERN"),
    pattern: z.string().check(z.describe("Java-style regex, matched case-insensitively with RE2 semantics")),
  }),
  z.looseObject({ type: z.literal("KEYWORDS"), keywords: z.array(z.string()) }),
]);

export const SkillArgument = z.looseObject({
  name: z.string(),
  type: z.string(),
  description: z.optional(z.string()),
  required: z.boolean(),
  /** Every value the argument may take, when the author listed them. */
  enum: z.optional(z.array(z.union([z.string(), z.number(), z.boolean()]))),
});

const summaryShape = {
  name: z.string(),
  title: z.string(),
  description: z.string(),
  /** Left out when the document has none (Agent Skills allows that: a warning, not an error). */
  version: z.optional(z.string()),
  tags: z.array(z.string()),
  source: SkillSource,
  lifecycle: z.enum(["sticky", "shot"]),
  triggers: z.array(SkillTrigger),
  arguments: z.union([z.boolean(), z.array(SkillArgument)]),
  run: z.looseObject({ target: z.enum(["inline", "spawn"]), recipe: z.optional(z.string()), inherit: z.optional(z.string()) }),
  argumentHint: z.optional(z.string()),
  disableModelInvocation: z.optional(z.boolean()),
  userInvocable: z.optional(z.boolean()),
};

export const SkillSummary = z.looseObject(summaryShape).check(z.meta({ id: "SkillSummary" }));

export const SkillReferenceDoc = z.looseObject({
  title: z.string(),
  file: z.string(),
  loadMode: z.enum(["INLINE", "ON_DEMAND"]),
  summary: z.optional(z.string()),
  content: z.optional(z.string()),
});

/** One file of the skill's folder; `digest` (`sha256:<hex>`) where the service computed one. */
export const SkillFile = z.object({
  path: z.string(),
  size: z.int(),
  digest: z.optional(z.string().check(z.regex(/^sha256:[0-9a-f]{64}$/))),
});

// The summary's shape spread rather than z.extend: an extended schema keeps its parent's JSON
// Schema id, and the OpenAPI document would then call the detail a summary.
export const SkillDetail = z
  .looseObject({
    ...summaryShape,
    body: z.string(),
    tools: z.array(z.string()),
    manualPaths: z.array(z.string()),
    referenceDocs: z.array(SkillReferenceDoc),
    activate: z.array(z.string()),
    deactivate: z.array(z.string()),
    action: z.nullable(z.string()),
    scripts: z.array(z.looseObject({})),
    files: z.array(SkillFile),
  })
  .check(z.meta({ id: "SkillDetail" }));

export const ShadowedSkill = z
  .looseObject({ name: z.string(), source: z.string(), path: z.string(), shadowedBy: z.string(), reason: z.optional(z.string()) })
  .check(z.meta({ id: "ShadowedSkill" }));

export const SkillProblem = z
  .looseObject({
    name: z.string(),
    source: z.string(),
    path: z.string(),
    line: z.optional(z.int()),
    message: z.string(),
    severity: z.optional(z.enum(["error", "warning", "info"])),
  })
  .check(z.meta({ id: "SkillProblem" }));

export const EffectiveSkills = z.object({ skills: z.array(SkillSummary), shadowed: z.optional(z.array(ShadowedSkill)) });

export const SkillProblems = z.object({ problems: z.array(SkillProblem) });

/** Activations of one skill on one UTC day, by path, and refused ones. */
export const SkillUsageRow = z.looseObject({
  name: z.string(),
  source: z.nullable(z.string()),
  day: z.string(),
  explicit: z.number(),
  trigger: z.number(),
  model: z.number(),
  recipe: z.number(),
  spawn: z.number(),
  refused: z.number(),
  refusedCodes: z
    .record(z.string(), z.number())
    .check(z.describe('`refused` split by the error code each refusal answered, e.g. {"SKILL_NOT_ALLOWED": 2}')),
});

export const SkillUsage = z.object({
  usage: z.array(SkillUsageRow),
  truncated: z.optional(z.literal(true).check(z.describe("Present when more than 10 000 rows were counted: the oldest days are left out"))),
});

/** `GET …/skills/search`: the best matches and how many skills matched in all. */
export const SkillSearchResult = z.object({
  results: z.array(z.object({ name: z.string(), description: z.string(), source: z.string(), score: z.number() })),
  total: z.int(),
});

export const SkillEvalCase = z.looseObject({
  message: z.string(),
  expected: z.boolean(),
  fired: z.boolean().check(z.describe("A turn would activate the skill on this message")),
  blocked: z.optional(
    z
      .string()
      .check(
        z.describe(
          "The trigger matches but a turn would not activate the skill, in the activation ledger's words: spawn-only, shot, disabled, argument-missing",
        ),
      ),
  ),
  alsoFired: z.array(z.string()).check(z.describe("The other skills a turn would activate on the same message (the confusion list)")),
  listed: z.optional(
    z
      .boolean()
      .check(z.describe("`should` cases: the turn's catalog would list the skill for this message (its level's context, default budget)")),
  ),
  searchRank: z.optional(
    z.nullable(z.int()).check(z.describe("`should` cases: the skill's 1-based rank in skill_search for this message, null past 20")),
  ),
});

export const SkillEvalsResult = z.looseObject({
  name: z.string(),
  precision: z.number(),
  recall: z.number(),
  triggers: z.int().check(z.describe("How many triggers the skill has: 0 = only /skill or the model can activate it")),
  cases: z.array(SkillEvalCase),
  totalCases: z.int().check(z.describe("Cases in the evals file")),
  incomplete: z
    .boolean()
    .check(z.describe("The time budget ran out: `cases` holds the first ones only, and precision and recall are theirs")),
});

export type SkillTrigger = z.infer<typeof SkillTrigger>;
export type SkillArgument = z.infer<typeof SkillArgument>;
export type SkillSummary = z.infer<typeof SkillSummary>;
export type SkillDetail = z.infer<typeof SkillDetail>;
export type SkillFile = z.infer<typeof SkillFile>;
export type ShadowedSkill = z.infer<typeof ShadowedSkill>;
export type SkillProblem = z.infer<typeof SkillProblem>;
export type SkillUsageRow = z.infer<typeof SkillUsageRow>;
export type SkillSearchResult = z.infer<typeof SkillSearchResult>;
export type SkillEvalsResult = z.infer<typeof SkillEvalsResult>;
