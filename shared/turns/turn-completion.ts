// What completing a turn triggers: the oneShot skills the turn carried are cleared (their
// `deactivate:` fires), the guard hook may ask for another turn, and a final turn ends the process
// — every skill cleared, "on close" (§2c) — and reports to the parent's lane. Split from
// skill-turn-support.ts (issue 29): that file does the conditional write, this one decides what the
// write contains and what follows it.
import type { TurnCompletePayload } from "../lanes/lane-payloads.js";
import type { ActiveSkillRef, PendingMessage, Process, ProcessStatus } from "../processes/process.js";
import type { ResolvedSkill } from "../skills/resolved-skill.js";
import type { LaneRequests } from "../steering/lane-requests.js";
import type { SkillCommandRunner } from "../steering/skill-command-runner.js";
import { deactivateAll } from "../steering/skill-steer-processor.js";
import { derivedRequestId, pendingId } from "../steering/steer-context.js";
import type { SteerOutcome, SteerRequest } from "../steering/steer-context.js";
import { MAX_PENDING_TEXT_BYTES } from "../processes/process-limits.js";
import { appendPending, truncateUtf8 } from "../steering/steering-limits.js";
import type { GuardRunner } from "./guard-runner.js";

export const GUARD_SENDER = "_guard";

/** Result of `turn.complete`. */
export interface TurnCompleteResult {
  activeSkills: ActiveSkillRef[];
  /** oneShot skills auto-cleared by this completion (all skills when the process ended). */
  cleared: string[];
  status: ProcessStatus;
  turnScheduled: boolean;
  warnings?: string[];
}

export interface TurnCompletionDeps {
  commands: SkillCommandRunner;
  guard: GuardRunner;
  /** Sends a finished worker's report to its parent's lane. */
  requests: LaneRequests;
  clock: () => Date;
}

/** The process after the completion's clears, with what they cleared and warned. */
export interface SettledTurn {
  process: Process;
  cleared: string[];
  warnings: string[];
}

export class TurnCompletion {
  constructor(private readonly deps: TurnCompletionDeps) {}

  /** The guard hook's request for another turn, as the pending message that schedules it (none on a final turn). */
  async guardMessage(
    req: SteerRequest,
    snapshot: Process,
    turnId: string,
    output: string,
    final: boolean,
  ): Promise<PendingMessage | undefined> {
    const verdict =
      snapshot.guard !== null
        ? await this.deps.guard.evaluate({ process: snapshot, turnId, task: snapshot.turn?.task, output, final })
        : {};
    const continueWith = final ? undefined : verdict.continueWith?.trim() || undefined;
    return continueWith === undefined
      ? undefined
      : {
          id: pendingId(req.requestId, "guard"),
          sender: GUARD_SENDER,
          text: truncateUtf8(continueWith, MAX_PENDING_TEXT_BYTES),
          kind: "guard",
          at: this.deps.clock().toISOString(),
        };
  }

  /**
   * The completed state: the oneShot skills carried (all skills on a final turn) cleared with
   * their `deactivate:`, the output stored, no turn in flight, and the guard's message pending.
   */
  settle(
    current: Process,
    settlement: {
      final: boolean;
      output: string;
      definitions: ReadonlyMap<string, ResolvedSkill | undefined>;
      guardMessage: PendingMessage | undefined;
    },
  ): SettledTurn {
    const { final, output, definitions, guardMessage } = settlement;
    const removed = final ? current.activeSkills : oneShotsOf(current);
    const removedNames = new Set(removed.map((s) => s.name));
    const remaining = current.activeSkills.filter((s) => !removedNames.has(s.name));
    const deactivated = deactivateAll(this.deps.commands, { ...current, activeSkills: remaining }, removed, definitions);
    const cleared = removed.map((s) => s.name);
    let next: Process = { ...deactivated.process, lastOutput: output, turn: null, ...(final ? { status: "DONE" as const } : {}) };
    if (guardMessage) next = appendPending(next, [guardMessage]);
    return { process: next, cleared, warnings: deactivated.warnings };
  }

  /** A completion whose write already happened: only the report to the parent may be missing. */
  async replay(req: SteerRequest, process: Process, payload: TurnCompletePayload): Promise<SteerOutcome<TurnCompleteResult>> {
    // The report is sent after the write; a crash in between is repaired here (the parent applies it once).
    if (payload.final && process.status === "DONE") await this.reportToParent(req, process, process.lastOutput ?? "");
    return { result: { activeSkills: process.activeSkills, cleared: [], status: process.status, turnScheduled: false }, process };
  }

  async reportToParent(req: SteerRequest, child: Process, output: string): Promise<void> {
    if (child.parentProcessId === null) return;
    await this.deps.requests.enqueue({
      tenant: child.tenant,
      processId: child.parentProcessId,
      user: null,
      kind: "process.report",
      payload: { childProcessId: child.processId, childName: child.name, output, status: child.status },
      requestId: derivedRequestId(req.requestId, "report"),
    });
  }
}

/** The oneShot skills the turn in flight carried and that are still oneShot (an explicit re-activation may have made one sticky). */
export function oneShotsOf(process: Process): ActiveSkillRef[] {
  const carried = new Set(process.turn?.oneShotSkills ?? []);
  return process.activeSkills.filter((s) => s.oneShot && carried.has(s.name));
}
