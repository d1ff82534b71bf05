import * as z from "zod";
import { ActivatedBy } from "../../shared/processes/process.js";
import { SkillArgument, SkillTrigger } from "../../shared/skills/skill-frontmatter.js";

/**
 * The answers of API.md as zod schemas, for the OpenAPI document only: the handlers build these
 * shapes from domain objects and never parse them, so they live here and not next to a handler.
 * Request bodies are not here: the document takes them from the handlers (the one schema each).
 * Objects are open (`looseObject`): the service adds fields, API.md says additive is allowed.
 */

const Source = z.enum(["USER", "PROJECT", "VANCE", "RESOURCE"]).meta({ id: "SkillSource" });

export const ApiErrorBody = z
  .object({
    error: z.looseObject({
      code: z.string(),
      message: z.string(),
      problems: z.array(z.looseObject({ path: z.string().optional(), line: z.number().int().optional(), message: z.string(), severity: z.string().optional() })).optional(),
    }),
  })
  .meta({ id: "Error", description: "API.md \"Errors\": every error answers this shape" });

export const ActiveSkillRefOut = z
  .looseObject({
    name: z.string(),
    resolvedFromScope: Source,
    oneShot: z.boolean(),
    fromRecipe: z.boolean(),
    activatedAt: z.string(),
    args: z.string().nullable(),
    activatedBy: ActivatedBy,
  })
  .meta({ id: "ActiveSkillRef" });

export const SkillSummaryOut = z
  .looseObject({
    name: z.string(),
    title: z.string(),
    description: z.string(),
    version: z.string(),
    tags: z.array(z.string()),
    source: Source,
    lifecycle: z.enum(["sticky", "shot"]),
    triggers: z.array(SkillTrigger),
    arguments: z.union([z.boolean(), z.array(SkillArgument)]),
    run: z.looseObject({ target: z.enum(["inline", "spawn"]), recipe: z.string().optional(), inherit: z.string().optional() }),
    argumentHint: z.string().optional(),
    disableModelInvocation: z.boolean().optional(),
    userInvocable: z.boolean().optional(),
  })
  .meta({ id: "SkillSummary" });

export const SkillDetailOut = SkillSummaryOut.extend({
  body: z.string(),
  tools: z.array(z.string()),
  manualPaths: z.array(z.string()),
  referenceDocs: z.array(z.looseObject({ title: z.string(), file: z.string(), loadMode: z.enum(["INLINE", "ON_DEMAND"]), content: z.string().optional() })),
  activate: z.array(z.string()),
  deactivate: z.array(z.string()),
  action: z.string().nullable(),
  scripts: z.array(z.looseObject({})),
  files: z.array(z.object({ path: z.string(), size: z.number().int(), digest: z.string().regex(/^sha256:[0-9a-f]{64}$/).optional() })),
}).meta({ id: "SkillDetail" });

export const ShadowedOut = z.looseObject({ name: z.string(), source: z.string(), path: z.string(), shadowedBy: z.string(), reason: z.string().optional() }).meta({ id: "ShadowedSkill" });

export const SkillProblemOut = z
  .looseObject({ name: z.string(), source: z.string(), path: z.string(), line: z.number().int().optional(), message: z.string(), severity: z.enum(["error", "warning", "info"]).optional() })
  .meta({ id: "SkillProblem" });

const PendingMessageOut = z.looseObject({ id: z.string(), sender: z.string(), text: z.string() }).meta({ id: "PendingMessage" });

export const ProcessOut = z
  .looseObject({
    processId: z.string(),
    sessionId: z.string(),
    name: z.string(),
    recipe: z.string(),
    projectId: z.string(),
    activeSkills: z.array(ActiveSkillRefOut),
    allowedSkillsOverride: z.array(z.string()).nullable(),
    skillVersions: z.record(z.string(), z.string()).optional().describe("Only when the recipe pins skills (skillVersions): skill name → versionId of its SKILL.md"),
    locked: z.boolean(),
    pending: z.array(PendingMessageOut),
    guard: z.looseObject({ type: z.enum(["inline", "script"]) }).nullable(),
    parentProcessId: z.string().nullable(),
    children: z.array(z.looseObject({ processId: z.string(), name: z.string() })),
    status: z.string(),
    version: z.number().int(),
  })
  .meta({ id: "Process" });

export const TurnOut = z
  .looseObject({
    turnId: z.string(),
    systemPrompt: z.array(z.object({ role: z.literal("system"), content: z.string() })),
    skillSection: z.string(),
    tools: z.array(z.string()),
    toolSpecs: z.array(z.looseObject({ name: z.string(), description: z.string(), inputSchema: z.looseObject({}) })),
    manualPaths: z.array(z.string()),
    messages: z.array(PendingMessageOut),
    activeSkills: z.array(ActiveSkillRefOut),
    catalog: z.looseObject({
      entries: z.array(z.looseObject({ name: z.string(), description: z.string(), source: z.string() })),
      omitted: z.array(z.string()),
      budgetChars: z.number().int(),
      usedChars: z.number().int(),
    }),
    activation: z.array(
      z.looseObject({
        name: z.string(),
        outcome: z.enum(["active", "activated", "blocked", "not-matched"]),
        activatedBy: z.string().optional(),
        reason: z.string().optional(),
        trigger: z.looseObject({ type: z.enum(["KEYWORDS", "PATTERN"]), index: z.number().int() }).optional(),
        pinnedVersion: z.string().optional().describe("The versionId this active skill composed at (its recipe's skillVersions)"),
      }),
    ),
  })
  .meta({ id: "Turn" });

const RequestStatus = z.enum(["QUEUED", "DONE", "FAILED"]);

export const RequestRecordOut = z
  .looseObject({ requestId: z.string(), status: RequestStatus, result: z.unknown().optional(), error: ApiErrorBody.shape.error.optional() })
  .meta({ id: "RequestRecord" });

export const QueuedOut = z.looseObject({ requestId: z.string(), status: RequestStatus, turnId: z.string().optional() }).meta({ id: "Queued" });

/** `Prefer: wait` answered in time: the result of the applied request. */
export const doneOf = (result: z.ZodType) => z.looseObject({ requestId: z.string(), status: z.literal("DONE"), turnId: z.string().optional(), result });

export const ActivateResultOut = z
  .looseObject({ activeSkills: z.array(ActiveSkillRefOut), turnScheduled: z.boolean().optional(), spawned: z.object({ processId: z.string(), name: z.string() }).optional() })
  .meta({ id: "SteerResult", description: "ACTIVATE: activeSkills, turnScheduled, spawned?; CLEAR / CLEAR_ALL: activeSkills" });

export const CompleteResultOut = z.looseObject({ activeSkills: z.array(ActiveSkillRefOut) }).meta({ id: "CompleteResult" });

export const DocumentEntryOut = z.object({ path: z.string(), etag: z.string(), size: z.number().int() }).meta({ id: "DocumentEntry" });

export const DocumentVersionOut = z
  .object({
    versionId: z.string(),
    etag: z.string(),
    lastModified: z.string().meta({ description: "ISO 8601" }),
    size: z.number().int(),
    writtenBy: z.string().optional().meta({ description: "The writer's login, where known (writes from outside the API carry none)" }),
  })
  .meta({ id: "DocumentVersion" });

export const SavedDocumentOut = z
  .looseObject({ path: z.string(), etag: z.string(), warnings: z.array(z.looseObject({ path: z.string().optional(), line: z.number().int().optional(), message: z.string() })) })
  .meta({ id: "SavedDocument" });
