import { SkillsError } from "../errors.js";
import type { ErrorCode } from "../errors.js";
import type { LaneUser } from "../lanes/lane-message.js";
import type { ActiveSkillRef, Process } from "../processes/process.js";

/** API.md `skill_activate` answer. */
export interface ModelActivationResult {
  activeSkills: ActiveSkillRef[];
  turnScheduled: boolean;
  skill: { name: string; content: string };
  spawned?: { processId: string; name: string };
  warnings?: string[];
}

/**
 * Where the model's activation goes: an ACTIVATE on the process lane with `activatedBy: model`,
 * waited for (the app implements it: shared/app/model-activation.ts). The checks are the lane's,
 * so the errors are ACTIVATE's.
 */
export interface ModelActivation {
  activate(
    process: Process,
    user: LaneUser | null,
    input: { skillName: string; args?: string | undefined },
  ): Promise<ModelActivationResult>;
}

/** A lane request that FAILED, re-thrown with the code and message the lane recorded. */
export class LaneRequestFailed extends SkillsError {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The lane did not apply the activation within the wait: it still will, in lane order. */
export class ActivationStillQueued extends SkillsError {
  readonly code = "SERVICE_UNAVAILABLE";
  constructor(
    readonly requestId: string,
    waitedMs: number,
  ) {
    super(
      `skill_activate was queued as request '${requestId}' but not applied within ${waitedMs} ms; it will be applied in lane order — GET …/requests/${requestId} tells when`,
    );
  }
}
