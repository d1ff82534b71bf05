import type { SkillActivation, SkillRefusal } from "./skill-activations.js";
import { createHash } from "node:crypto";
import type { LaneUser } from "../lanes/lane-message.js";
import type { ActiveSkillRef, PendingMessage, Process } from "../processes/process.js";
import type { SkillScopeContext } from "../documents/cascade-scope.js";
import { primedVersionsOfProcess } from "../catalogue/primed-versions.js";
import type { TurnScheduledReason } from "./process-events.js";

/** One lane message being applied: who asked, for which process, under which requestId. */
export interface SteerRequest {
  tenant: string;
  processId: string;
  requestId: string;
  user: LaneUser | null;
}

/**
 * What applying a message did. `result` is the API result of the request; `scheduled` is set
 * when the write appended pending messages that need a turn (the applier announces it).
 */
export interface SteerOutcome<R> {
  result: R;
  process: Process;
  scheduled?: { reason: TurnScheduledReason; pending: PendingMessage[] } | undefined;
  /** Skills this request made active, reported once its write is stored (absent on a replay). */
  activated?: readonly SkillActivation[] | undefined;
  /** Activations the request tried inside a request that itself succeeded (a trigger whose `activate:` failed). */
  refused?: readonly SkillRefusal[] | undefined;
}

/** API.md: result of ACTIVATE. */
export interface ActivateResult {
  activeSkills: ActiveSkillRef[];
  turnScheduled: boolean;
  spawned?: { processId: string; name: string };
  /** `deactivate:`/trigger findings that did not fail the request. Absent when there are none. */
  warnings?: string[];
}

/** API.md: result of CLEAR and CLEAR_ALL. */
export interface ClearResult {
  activeSkills: ActiveSkillRef[];
  warnings?: string[];
}

/** The cascade is resolved against the process (spec §4a: tenant + project + user of the session). */
export const scopeOf = (process: Pick<Process, "tenant" | "userId" | "projectId" | "skillVersions">): SkillScopeContext => {
  // A turn's process carries the catalogue versions read along with it (WarmTurnStates).
  const catalogueVersions = primedVersionsOfProcess(process);
  return {
    tenantId: process.tenant,
    userId: process.userId,
    projectId: process.projectId,
    ...(process.skillVersions !== undefined ? { skillVersions: process.skillVersions } : {}),
    ...(catalogueVersions !== undefined ? { catalogueVersions } : {}),
  };
};

/**
 * Pending message ids derive from the requestId, so re-applying a request (the store may call a
 * mutation more than once) yields the very same messages.
 */
export const pendingId = (requestId: string, role: string): string => `${requestId}#${role}`;

export const withWarnings = <R extends object>(result: R, warnings: readonly string[]): R & { warnings?: string[] } =>
  warnings.length > 0 ? { ...result, warnings: [...warnings] } : result;

const MAX_REQUEST_ID_LENGTH = 512;

/**
 * The requestId of a message the lane sends on behalf of another request (a spawned child's
 * activation, a report to the parent): derived, so a redelivery sends the very same request.
 */
export function derivedRequestId(requestId: string, role: string): string {
  const direct = `${requestId}#${role}`;
  if (direct.length <= MAX_REQUEST_ID_LENGTH) return direct;
  return `sha256:${createHash("sha256").update(requestId, "utf8").digest("hex")}#${role}`;
}
