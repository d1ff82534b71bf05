import { isErrorCode } from "../http/error-table.js";
import type { ActivateResult } from "../steering/steer-context.js";
import { ActivationStillQueued, LaneRequestFailed } from "../tools/model-activation.js";
import type { ModelActivation } from "../tools/model-activation.js";
import type { SkillsApp } from "./skills-app.js";

/** How long skill_activate waits for the lane by default: API.md's `Prefer: wait` ceiling (functions pass less to fit their timeout). */
export const MODEL_ACTIVATION_WAIT_MS = 20_000;

/**
 * skill_activate (API.md "Catalog and model activation") as the lane sees it: an ACTIVATE with
 * `activatedBy: model`, recorded and ordered like every other change of the process, then waited
 * for like `Prefer: wait` (one of the caller's wait slots). The checks, and so the errors, are the
 * lane's. After it applied, the skill's block is rendered from the stored process, so the model
 * gets exactly what its next turn will carry.
 */
export function laneModelActivation(
  app: Pick<SkillsApp, "enqueue" | "waitForRequest" | "getRequest" | "getProcess" | "turns">,
  options: { waitMs?: number } = {},
): ModelActivation {
  const waitMs = options.waitMs ?? MODEL_ACTIVATION_WAIT_MS;
  return {
    async activate(process, user, input) {
      const { tenant, processId } = process;
      const payload = {
        skillName: input.skillName,
        ...(input.args !== undefined ? { args: input.args } : {}),
        activatedBy: "model" as const,
      };
      const accepted = await app.enqueue(tenant, processId, user, "skill.activate", payload);
      const record =
        accepted.status === "QUEUED"
          ? await app.waitForRequest(tenant, processId, accepted.requestId, waitMs, user ? { waiter: user.login } : {})
          : await app.getRequest(tenant, processId, accepted.requestId);
      if (record === undefined || record.status === "QUEUED") throw new ActivationStillQueued(accepted.requestId, waitMs);
      if (record.status === "FAILED") {
        const code = record.error?.code;
        // The lane records domain errors only; anything else is a bug and stays a 500.
        if (!isErrorCode(code) || code === "INTERNAL")
          throw new Error(`skill_activate request ${accepted.requestId} failed: ${record.error?.message ?? "unknown"}`);
        throw new LaneRequestFailed(code, record.error?.message ?? code);
      }
      const result = record.result as ActivateResult;
      const rendered = await app.turns.renderSkill(await app.getProcess(tenant, processId), input.skillName);
      const warnings = [...(result.warnings ?? []), ...rendered.warnings];
      return {
        activeSkills: result.activeSkills,
        turnScheduled: result.turnScheduled,
        skill: { name: input.skillName, content: rendered.content },
        ...(result.spawned ? { spawned: result.spawned } : {}),
        ...(warnings.length > 0 ? { warnings } : {}),
      };
    },
  };
}
