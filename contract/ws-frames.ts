import * as z from "zod/mini";
import "./locale.js";
import { ActiveSkillMetadata, ActiveSkillRef, PendingMessage } from "./processes.js";
import { ApiError, RequestId, RequestStatus } from "./common.js";
import { FootLogEntry } from "./foot-log.js";
import { MAX_FOOT_LOG_ENTRIES } from "./limits.js";
import { ProcessSkillRequest } from "./requests.js";
import { SkillSummary } from "./skills.js";

/**
 * API.md "WebSocket frames", told apart by `type`. Client frames are strict, as the HTTP bodies
 * are; server frames are open (the service may add fields). `requestId` is optional on every
 * client frame and echoed in the answer, for correlation.
 */

export const ProcessSkillFrame = z.strictObject({ ...ProcessSkillRequest.shape, type: z.literal("process-skill"), processId: RequestId });

export const ProcessSubscribeFrame = z.strictObject({
  type: z.literal("process-subscribe"),
  processId: RequestId,
  requestId: z.optional(RequestId),
});

export const SkillListFrame = z.strictObject({
  type: z.literal("skill-list"),
  projectId: RequestId,
  processId: z.optional(RequestId),
  /** The previous page's `nextCursor` (opaque). */
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(512))),
  requestId: z.optional(RequestId),
});

/**
 * The Foot client's answer to a `process-skill-script-execute` (spec §13.5): exactly one of
 * `result` (the script's value, JSON) and `error`; `logs` are the script's `vance.log` entries.
 */
export const ProcessSkillScriptResultFrame = z
  .strictObject({
    type: z.literal("process-skill-script-result"),
    invocationId: RequestId,
    result: z.optional(z.unknown()),
    error: z.optional(
      z.strictObject({
        code: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
        message: z.string().check(z.maxLength(4_000)),
      }),
    ),
    logs: z.optional(z.array(FootLogEntry).check(z.maxLength(MAX_FOOT_LOG_ENTRIES))),
    requestId: z.optional(RequestId),
  })
  .check(
    z.refine((frame) => "result" in frame !== (frame.error !== undefined), { message: "must carry exactly one of 'result' and 'error'" }),
  );

export { FootLogEntry };

export const CLIENT_FRAME_TYPES = ["process-skill", "process-subscribe", "skill-list", "process-skill-script-result"] as const;

export const ClientFrame = z.discriminatedUnion("type", [
  ProcessSkillFrame,
  ProcessSubscribeFrame,
  SkillListFrame,
  ProcessSkillScriptResultFrame,
]);

// Server → client frames.

export const TurnScheduledReason = z.enum(["action", "shot", "args", "report", "guard"]);

const truncated = z.optional(z.literal(true));

export const ErrorFrame = z.looseObject({ type: z.literal("error"), error: ApiError, requestId: z.optional(z.string()) });

export const ProcessSkillResultFrame = z.looseObject({
  type: z.literal("process-skill-result"),
  requestId: z.string(),
  processId: z.string(),
  status: RequestStatus,
  result: z.optional(z.unknown()),
  error: z.optional(ApiError),
  truncated,
});

/** A composed turn's result; `process-skill-result` keeps the steering results. */
export const ProcessTurnResultFrame = z.looseObject({
  type: z.literal("process-turn-result"),
  processId: z.string(),
  requestId: z.string(),
  turnId: z.string(),
  status: RequestStatus,
  result: z.optional(z.unknown()),
  error: z.optional(ApiError),
  truncated,
});

export const SkillListResultFrame = z.looseObject({
  type: z.literal("skill-list-result"),
  projectId: z.string(),
  processId: z.optional(z.string()),
  requestId: z.optional(z.string()),
  skills: z.array(SkillSummary),
  /** A caller who is not the process's owner gets them without `args` (the metadata view). */
  active: z.array(z.union([ActiveSkillRef, ActiveSkillMetadata])),
  nextCursor: z.optional(z.string()),
  truncated,
  total: z.optional(z.int()),
});

export const ProcessTurnScheduledFrame = z.looseObject({
  type: z.literal("process-turn-scheduled"),
  processId: z.string(),
  reason: TurnScheduledReason,
  pending: z.array(PendingMessage),
  truncated,
});

export const ProcessSubscribedFrame = z.looseObject({
  type: z.literal("process-subscribed"),
  processId: z.string(),
  requestId: z.optional(z.string()),
});

export const ProcessSkillScriptExecuteFrame = z.looseObject({
  type: z.literal("process-skill-script-execute"),
  invocationId: z.string(),
  processId: z.string(),
  skillName: z.string(),
  scriptName: z.string(),
  args: z.record(z.string(), z.unknown()),
  source: z.string(),
});

export const ServerFrame = z.discriminatedUnion("type", [
  ErrorFrame,
  ProcessSkillResultFrame,
  ProcessTurnResultFrame,
  SkillListResultFrame,
  ProcessTurnScheduledFrame,
  ProcessSubscribedFrame,
  ProcessSkillScriptExecuteFrame,
]);

export type ProcessSkillFrame = z.infer<typeof ProcessSkillFrame>;
export type ProcessSubscribeFrame = z.infer<typeof ProcessSubscribeFrame>;
export type SkillListFrame = z.infer<typeof SkillListFrame>;
export type ProcessSkillScriptResultFrame = z.infer<typeof ProcessSkillScriptResultFrame>;
export type ClientFrame = z.infer<typeof ClientFrame>;
export type TurnScheduledReason = z.infer<typeof TurnScheduledReason>;
export type ErrorFrame = z.infer<typeof ErrorFrame>;
export type ProcessSkillResultFrame = z.infer<typeof ProcessSkillResultFrame>;
export type ProcessTurnResultFrame = z.infer<typeof ProcessTurnResultFrame>;
export type SkillListResultFrame = z.infer<typeof SkillListResultFrame>;
export type ProcessTurnScheduledFrame = z.infer<typeof ProcessTurnScheduledFrame>;
export type ProcessSubscribedFrame = z.infer<typeof ProcessSubscribedFrame>;
export type ProcessSkillScriptExecuteFrame = z.infer<typeof ProcessSkillScriptExecuteFrame>;
export type ServerFrame = z.infer<typeof ServerFrame>;
