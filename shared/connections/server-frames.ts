import type { ErrorBody } from "../http/error-response.js";
import type { ActiveSkillMetadata, ActiveSkillRef, PendingMessage } from "../processes/process.js";
import type { RequestError, RequestStatus } from "../processes/request-store.js";
import type { SkillSummary } from "../skills/skill-summary.js";
import type { TurnScheduledReason } from "../steering/process-events.js";

/**
 * Server → client frames (API.md "WebSocket frames"). Fields beyond API.md are additive:
 * `processId` on results and `requestId` echoes let a client with several subscriptions and
 * requests in flight correlate every frame; `truncated` marks a frame shrunk to fit
 * API Gateway's message limit (frame-size.ts), whose full content the HTTP API still serves.
 */
export interface ErrorFrame {
  type: "error";
  error: ErrorBody["error"];
  /** The `requestId` of the frame that was refused, when it had a readable one. */
  requestId?: string;
}

export interface ProcessSkillResultFrame {
  type: "process-skill-result";
  requestId: string;
  processId: string;
  status: RequestStatus;
  result?: unknown;
  error?: RequestError;
  /** `result` was too large to push: read it with GET …/processes/{processId}/requests/{requestId}. */
  truncated?: true;
}

/**
 * A composed turn (API.md third round): its own frame, so a subscriber tells a turn from a skill
 * steering result without looking inside `result`. A failed compose carries `status` and `error`.
 */
export interface ProcessTurnResultFrame {
  type: "process-turn-result";
  processId: string;
  requestId: string;
  turnId: string;
  status: RequestStatus;
  result?: unknown;
  error?: RequestError;
  /** `result` was too large to push: GET …/processes/{processId}/turns/{turnId} answers it. */
  truncated?: true;
}

export interface SkillListResultFrame {
  type: "skill-list-result";
  projectId: string;
  processId?: string;
  requestId?: string;
  skills: SkillSummary[];
  /** A caller who is not the process's owner gets them without `args` (the metadata view). */
  active: (ActiveSkillRef | ActiveSkillMetadata)[];
  /** More skills follow: send `skill-list` again with this `cursor` (API.md, second round). */
  nextCursor?: string;
  /** Only the first skills (by name) fitted: GET /brain/{tenant}/skills/effective lists all `total`. */
  truncated?: true;
  total?: number;
}

export interface ProcessTurnScheduledFrame {
  type: "process-turn-scheduled";
  processId: string;
  reason: TurnScheduledReason;
  pending: PendingMessage[];
  /** Message texts were cut to fit; the turn itself (POST …/turns) delivers them in full. */
  truncated?: true;
}

/** Extra frame: the subscription is stored; results and scheduled turns of the process follow. */
export interface ProcessSubscribedFrame {
  type: "process-subscribed";
  processId: string;
  requestId?: string;
}

/**
 * A `target: FOOT` script for the client to evaluate (spec §13.5); answered with a
 * `process-skill-script-result` carrying the same `invocationId`. `processId` is additive.
 */
export interface ProcessSkillScriptExecuteFrame {
  type: "process-skill-script-execute";
  invocationId: string;
  processId: string;
  skillName: string;
  scriptName: string;
  args: Record<string, unknown>;
  source: string;
}

export type ServerFrame =
  | ErrorFrame
  | ProcessSkillResultFrame
  | ProcessTurnResultFrame
  | SkillListResultFrame
  | ProcessTurnScheduledFrame
  | ProcessSubscribedFrame
  | ProcessSkillScriptExecuteFrame;

export const errorFrame = (error: ErrorBody["error"], requestId?: string): ErrorFrame => ({
  type: "error",
  error,
  ...(requestId === undefined ? {} : { requestId }),
});
