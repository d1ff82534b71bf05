import * as z from "zod/mini";
import "./locale.js";
import { ActivatedBy, ApiError, RequestStatus, SkillSource } from "./common.js";

/** API.md "Processes" and "Steering": a process, its active skills and its lane requests. */

export const ActiveSkillRef = z
  .looseObject({
    name: z.string(),
    resolvedFromScope: SkillSource,
    oneShot: z.boolean(),
    fromRecipe: z.boolean(),
    activatedAt: z.string(),
    args: z.nullable(z.string()),
    activatedBy: ActivatedBy,
  })
  .check(z.meta({ id: "ActiveSkillRef" }));

/** An active skill as a caller who is not the process's owner sees it: without its `args`. */
export const ActiveSkillMetadata = z.looseObject({
  name: z.string(),
  resolvedFromScope: SkillSource,
  oneShot: z.boolean(),
  fromRecipe: z.boolean(),
  activatedAt: z.string(),
  activatedBy: ActivatedBy,
});

/** A queued message for the next turn; `kind`/`skill` and other fields are kept as they were queued. */
export const PendingMessage = z
  .looseObject({ id: z.string(), sender: z.string(), text: z.string(), kind: z.optional(z.string()), skill: z.optional(z.string()) })
  .check(z.meta({ id: "PendingMessage" }));

export const Process = z
  .looseObject({
    processId: z.string(),
    sessionId: z.string(),
    name: z.string(),
    recipe: z.string(),
    projectId: z.string(),
    activeSkills: z.array(ActiveSkillRef),
    allowedSkillsOverride: z.nullable(z.array(z.string())),
    skillVersions: z.optional(
      z
        .record(z.string(), z.string())
        .check(z.describe("Only when the recipe pins skills (skillVersions): skill name → versionId of its SKILL.md")),
    ),
    locked: z.boolean(),
    pending: z.array(PendingMessage),
    guard: z.nullable(z.looseObject({ type: z.enum(["inline", "script"]) })),
    parentProcessId: z.nullable(z.string()),
    children: z.array(z.looseObject({ processId: z.string(), name: z.string() })),
    status: z.string(),
    version: z.int(),
  })
  .check(z.meta({ id: "Process" }));

export const ProcessList = z.object({ processes: z.array(Process) });

export const ActiveSkills = z.object({ activeSkills: z.array(z.looseObject({})) });

export const RequestRecord = z
  .looseObject({ requestId: z.string(), status: RequestStatus, result: z.optional(z.unknown()), error: z.optional(ApiError) })
  .check(z.meta({ id: "RequestRecord" }));

/** A lane call's 202 (or the stored status of a repeated requestId). */
export const Queued = z
  .looseObject({ requestId: z.string(), status: RequestStatus, turnId: z.optional(z.string()) })
  .check(z.meta({ id: "Queued" }));

/** `Prefer: wait` answered in time: the result of the applied request. */
export const doneOf = <R extends z.core.$ZodType>(result: R) =>
  z.looseObject({ requestId: z.string(), status: z.literal("DONE"), turnId: z.optional(z.string()), result });

export const ActivateResult = z
  .looseObject({
    activeSkills: z.array(ActiveSkillRef),
    turnScheduled: z.optional(z.boolean()),
    spawned: z.optional(z.object({ processId: z.string(), name: z.string() })),
  })
  .check(z.meta({ id: "SteerResult", description: "ACTIVATE: activeSkills, turnScheduled, spawned?; CLEAR / CLEAR_ALL: activeSkills" }));

export const CompleteResult = z.looseObject({ activeSkills: z.array(ActiveSkillRef) }).check(z.meta({ id: "CompleteResult" }));

export type ActiveSkillRef = z.infer<typeof ActiveSkillRef>;
export type ActiveSkillMetadata = z.infer<typeof ActiveSkillMetadata>;
export type PendingMessage = z.infer<typeof PendingMessage>;
export type Process = z.infer<typeof Process>;
// An intersection, not Omit: Omit on an open (looseObject) type keeps only its index signature.
export type RequestRecord<R = unknown> = z.infer<typeof RequestRecord> & { result?: R };
export type Queued = z.infer<typeof Queued>;
export type ActivateResult = z.infer<typeof ActivateResult>;
/** CLEAR / CLEAR_ALL answer the active skills only. */
export type ClearResult = Pick<ActivateResult, "activeSkills">;
export type CompleteResult = z.infer<typeof CompleteResult>;
