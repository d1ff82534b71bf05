import type { SkillsApp } from "../../shared/app/skills-app.js";
import type { LaneMessage } from "../../shared/lanes/lane-message.js";
import type { LaneApply } from "../../shared/lanes/lane-worker.js";
import type { ActiveSkillRef, Process } from "../../shared/processes/process.js";
import type { RequestRecord } from "../../shared/processes/request-store.js";
import type { HandlerLogger, SkillActivationSink } from "./observability.js";

/** A spawned process starts with its recipe's `defaultActiveSkills` (spec §7). */
export function recordRecipeActivations(sink: SkillActivationSink, process: Pick<Process, "activeSkills">): void {
  for (const skill of process.activeSkills) if (skill.fromRecipe) sink.skillActivated(skill.name, "recipe");
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const activeSkillsOf = (result: unknown): ActiveSkillRef[] =>
  isRecord(result) && Array.isArray(result.activeSkills) ? (result.activeSkills as ActiveSkillRef[]) : [];

const skillNameOf = (message: LaneMessage): string | undefined => {
  const payload = message.payload;
  return isRecord(payload) && typeof payload.skillName === "string" ? payload.skillName : undefined;
};

/** Kinds whose activations can only be told apart from the process as it was before the message. */
const NEEDS_BEFORE = new Set<LaneMessage["kind"]>(["turn.compose", "process.spawnActivate"]);

export interface LaneActivationMetrics {
  /** Pass as the app's `onApplied`: sees every request the lane settles, once. */
  readonly onApplied: (message: LaneMessage, record: RequestRecord) => void;
  /** The lane worker's apply, counting what each settled message activated. */
  wrap(app: Pick<SkillsApp, "applyLaneMessage" | "processes">): LaneApply;
}

/**
 * Skill activations by name and path, observed from the lane without a hook in the domain:
 * `explicit` — an ACTIVATE applied (not one that spawned a worker, which counts below);
 * `spawn` — a worker's own skill, on its `process.spawnActivate`, and its recipe's skills as `recipe`;
 * `trigger` — skills a composed turn has that the process did not have before it (the lane
 * serializes a process, so nothing else changed it in between).
 * Metrics never fail the lane: a failed read or an odd result only loses a data point.
 */
export function laneActivationMetrics(sink: SkillActivationSink, logger?: Pick<HandlerLogger, "warn">): LaneActivationMetrics {
  const settled = new Map<string, RequestRecord>();
  const keyOf = (message: Pick<LaneMessage, "tenant" | "requestId">): string => `${message.tenant}\u0000${message.requestId}`;

  const count = (message: LaneMessage, record: RequestRecord, before: Process | undefined): void => {
    if (record.status !== "DONE") return;
    const name = skillNameOf(message);
    switch (message.kind) {
      case "skill.activate":
        if (name !== undefined && !(isRecord(record.result) && record.result.spawned !== undefined)) sink.skillActivated(name, "explicit");
        return;
      case "process.spawnActivate":
        if (before) recordRecipeActivations(sink, before);
        if (name !== undefined) sink.skillActivated(name, "spawn");
        return;
      case "turn.compose": {
        if (!before) return;
        const had = new Set(before.activeSkills.map((s) => s.name));
        for (const skill of activeSkillsOf(record.result)) if (!had.has(skill.name) && !skill.fromRecipe) sink.skillActivated(skill.name, "trigger");
        return;
      }
      default:
        return;
    }
  };

  return {
    onApplied: (message, record) => {
      settled.set(keyOf(message), record);
    },
    wrap: (app) => async (message, delivery) => {
      let before: Process | undefined;
      if (NEEDS_BEFORE.has(message.kind)) {
        try {
          before = await app.processes.get(message.tenant, message.processId);
        } catch (error) {
          logger?.warn("Could not read the process for activation metrics", { processId: message.processId, error });
        }
      }
      try {
        await app.applyLaneMessage(message, delivery);
      } finally {
        const record = settled.get(keyOf(message));
        settled.delete(keyOf(message));
        if (record) {
          try {
            count(message, record, before);
          } catch (error) {
            logger?.warn("Could not record activation metrics", { requestId: message.requestId, error });
          }
        }
      }
    },
  };
}
