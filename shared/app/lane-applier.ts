import { requestFingerprint } from "../steering/lane-requests.js";
import { reportActivations } from "../steering/skill-activations.js";
import type { SkillActivationSink } from "../steering/skill-activations.js";
import { countRefusal, countRefusals, countUsage } from "./usage-counting.js";
import type { SkillUsageStore } from "../usage/skill-usage.js";
import { SkillsError } from "../errors.js";
import { hasApplied } from "../processes/applied-requests.js";
import type { ProcessStore } from "../processes/process-store.js";
import type { RequestOutcome, RequestRecord, RequestStore } from "../processes/request-store.js";
import { sleep } from "../support/retry-backoff.js";
import type { ChildReportReceiver } from "../steering/child-report-receiver.js";
import type { LaneRequests } from "../steering/lane-requests.js";
import type { ProcessEvents } from "../steering/process-events.js";
import type { SkillSteerProcessor } from "../steering/skill-steer-processor.js";
import { derivedRequestId } from "../steering/steer-context.js";
import type { SteerOutcome, SteerRequest } from "../steering/steer-context.js";
import { isTransientServiceError } from "../support/transient-errors.js";
import type { SkillTurnSupport } from "../turns/skill-turn-support.js";
import type { LaneTurnRead } from "../turns/turn-state.js";
import { LaneRequestAbandoned } from "../lanes/lane-errors.js";
import type { LaneMessage } from "../lanes/lane-message.js";
import { parseLanePayload } from "../lanes/lane-payloads.js";
import type { LaneApply, LaneDelivery } from "../lanes/lane-worker.js";
import type { Logger } from "../support/logger.js";

const GIVE_UP_ATTEMPTS = 3;
const GIVE_UP_BACKOFF_MS = 50;

interface LaneApplierDeps {
  steer: SkillSteerProcessor;
  turns: SkillTurnSupport;
  reports: ChildReportReceiver;
  processes: ProcessStore;
  requests: RequestStore;
  laneRequests: LaneRequests;
  events: ProcessEvents;
  logger?: Pick<Logger, "warn">;
  /**
   * Called once per request the lane settles, in the order they are settled (per process, the
   * lane order). Tests record the applied order with it; it must not throw.
   */
  onApplied?: (message: LaneMessage, record: RequestRecord) => void;
  /** Told the skills each applied request activated (SteerOutcome.activated). */
  activations?: SkillActivationSink;
  /** Usage counters (issue 17): one ADD per activation or refused activation, never one for a request that activates nothing. */
  usage?: SkillUsageStore;
  clock?: () => Date;
  /**
   * A compose's process read with its request's record and subscription marker in one round trip
   * (TurnStates.loadForLane); without it the request is read on its own.
   */
  readTurn?: (tenant: string, processId: string, requestId: string) => Promise<LaneTurnRead>;
}

/**
 * A domain error is the caller's answer (SKILL_NOT_FOUND, SKILL_LOCKED, …): the request is
 * recorded FAILED and the lane moves on. Anything else (a store or queue failure, a bug) rejects,
 * so the message is delivered again and holds back the rest of its process's lane.
 */
const isDomainError = (error: unknown): error is SkillsError =>
  error instanceof SkillsError && error.code !== "INTERNAL" && error.code !== "SERVICE_UNAVAILABLE";

/**
 * The lane worker's `apply`: dispatches a message by kind to SkillSteerProcessor, SkillTurnSupport
 * or the report receiver, then records the request's outcome and tells subscribers.
 *
 * At most once: a request whose record is already DONE/FAILED is skipped (a redelivery after the
 * result was stored); one whose process write happened but whose result was not stored yet is
 * recognised by the process's `appliedRequests` and answered from the stored state.
 *
 * Never waiting forever: when a delivery marked `lastAttempt` fails, the request is recorded
 * FAILED before the message leaves the lane (see `abandon`), so the caller gets an error.
 */
export function createLaneApplier(deps: LaneApplierDeps): LaneApply {
  const logger = deps.logger ?? console;
  const usageDeps = {
    usage: deps.usage,
    activations: deps.activations,
    processes: deps.processes,
    clock: deps.clock ?? (() => new Date()),
    logger,
  };

  const bestEffort = async (what: string, event: () => Promise<void>): Promise<void> => {
    try {
      await event();
    } catch (error) {
      logger.warn(`Could not publish ${what}`, { error });
    }
  };

  const dispatch = async (message: LaneMessage, req: SteerRequest, read: LaneTurnRead | undefined): Promise<SteerOutcome<unknown>> => {
    switch (message.kind) {
      case "skill.activate":
        return deps.steer.activate(req, parseLanePayload(message.kind, message.payload));
      case "skill.clear":
        return deps.steer.clear(req, parseLanePayload(message.kind, message.payload));
      case "skill.clearAll":
        parseLanePayload(message.kind, message.payload);
        return deps.steer.clearAll(req);
      case "turn.compose":
        return deps.turns.compose(req, parseLanePayload(message.kind, message.payload), read?.state);
      case "turn.complete":
        return deps.turns.complete(req, parseLanePayload(message.kind, message.payload));
      case "process.spawnActivate":
        return deps.steer.spawnActivate(req, parseLanePayload(message.kind, message.payload));
      case "process.report":
        return deps.reports.receive(req, parseLanePayload(message.kind, message.payload));
    }
  };

  /** A worker whose activation failed would idle forever unnoticed: its parent hears about it. */
  const reportFailedSpawn = async (message: LaneMessage, error: SkillsError): Promise<void> => {
    const payload = message.payload as { parentProcessId?: unknown } | undefined;
    if (typeof payload?.parentProcessId !== "string") return;
    const child = await deps.processes.get(message.tenant, message.processId);
    await deps.laneRequests.enqueue({
      tenant: message.tenant,
      processId: payload.parentProcessId,
      user: null,
      kind: "process.report",
      payload: {
        childProcessId: message.processId,
        childName: child?.name ?? message.processId,
        output: `Activation failed: ${error.message}`,
        status: "FAILED",
      },
      requestId: derivedRequestId(message.requestId, "report"),
    });
  };

  const publishCompletion = async (message: LaneMessage, record: RequestRecord, noSubscribers?: boolean): Promise<void> => {
    const { tenant, processId, requestId, kind } = message;
    await bestEffort("request completion", () =>
      deps.events.requestCompleted({
        tenant,
        processId,
        requestId,
        kind,
        ...(noSubscribers ? { noSubscribers } : {}),
        status: record.status === "FAILED" ? "FAILED" : "DONE",
        ...(record.status === "FAILED" ? { error: record.error } : { result: record.result }),
      }),
    );
  };

  const settle = async (message: LaneMessage): Promise<void> => {
    const { tenant, processId, requestId, kind } = message;
    const read = kind === "turn.compose" ? await deps.readTurn?.(tenant, processId, requestId) : undefined;
    const existing = read?.request ? read.request.record : await deps.requests.get(tenant, processId, requestId);
    if (existing && existing.status !== "QUEUED") return;
    const noSubscribers = read?.mayHaveSubscribers === false;
    // A producer that skipped putQueued still gets a record a caller can read.
    if (!existing) await deps.requests.putQueued(tenant, processId, requestId, kind, requestFingerprint(kind, message.payload));

    const req: SteerRequest = { tenant, processId, requestId, user: message.user };
    let outcome: RequestOutcome;
    let steered: SteerOutcome<unknown> | undefined;
    try {
      steered = await dispatch(message, req, read);
      outcome = { status: "DONE", result: steered.result };
    } catch (error) {
      if (!isDomainError(error)) throw error;
      outcome = { status: "FAILED", error: { code: error.code, message: error.message } };
      if (kind === "process.spawnActivate") await reportFailedSpawn(message, error);
    }

    const record = await deps.requests.complete(tenant, processId, requestId, outcome);
    deps.onApplied?.(message, record);
    if (record.status === "DONE") {
      reportActivations(
        deps.activations,
        steered?.activated,
        (error) => logger.warn("Could not record activation metrics", { requestId, error }),
        steered && { tenant, projectId: steered.process.projectId },
      );
      if (steered)
        await Promise.all([
          countUsage(usageDeps, steered.process, steered.activated),
          countRefusals(usageDeps, steered.process, steered.refused),
        ]);
    } else if (record.error) {
      await countRefusal(usageDeps, message, record.error.code);
    }
    const scheduled = steered?.scheduled;
    if (scheduled) {
      await bestEffort("process-turn-scheduled", () =>
        deps.events.turnScheduled({
          tenant,
          processId,
          reason: scheduled.reason,
          pending: scheduled.pending,
          ...(noSubscribers ? { noSubscribers } : {}),
        }),
      );
    }
    await publishCompletion(message, record, noSubscribers);
  };

  /**
   * The last delivery failed, so nobody would ever settle this request. If the process shows it
   * applied (the failure came after the write), it is answered from the stored state like any
   * redelivery; otherwise it is recorded FAILED (LaneRequestAbandoned). true when the request is
   * settled as applied (or was settled meanwhile), false when it was given up.
   */
  const abandon = async (message: LaneMessage, delivery: LaneDelivery, cause: unknown): Promise<boolean> => {
    const { tenant, processId, requestId } = message;
    const process = await deps.processes.get(tenant, processId);
    if (process && hasApplied(process, requestId)) {
      await settle(message);
      return true;
    }
    const { record: current } = await deps.requests.putQueued(
      tenant,
      processId,
      requestId,
      message.kind,
      requestFingerprint(message.kind, message.payload),
    );
    if (current.status !== "QUEUED") return true;
    const error = new LaneRequestAbandoned(requestId, delivery.receiveCount, isTransientServiceError(cause));
    const record = await deps.requests.complete(tenant, processId, requestId, {
      status: "FAILED",
      error: { code: error.code, message: error.message },
    });
    deps.onApplied?.(message, record);
    await publishCompletion(message, record);
    return false;
  };

  return async (message: LaneMessage, delivery: LaneDelivery): Promise<void> => {
    try {
      await settle(message);
    } catch (error) {
      if (delivery.lastAttempt !== true) throw error;
      // No later delivery will try again: a throttled store gets a few more chances here.
      for (let attempt = 1; ; attempt++) {
        try {
          if (await abandon(message, delivery, error)) return;
          break;
        } catch (giveUpError) {
          if (attempt < GIVE_UP_ATTEMPTS && isTransientServiceError(giveUpError)) {
            await sleep(GIVE_UP_BACKOFF_MS * attempt);
            continue;
          }
          logger.warn("Could not record that the lane gave up on a request", { requestId: message.requestId, error: giveUpError });
          break;
        }
      }
      // Still a failure: the worker parks the message (or the redrive policy moves it) for inspection.
      throw error;
    }
  };
}
