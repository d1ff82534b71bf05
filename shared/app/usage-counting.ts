import type { LaneMessage } from "../lanes/lane-message.js";
import type { Process } from "../processes/process.js";
import type { ProcessStore } from "../processes/process-store.js";
import type { SkillActivation, SkillActivationSink, SkillRefusal } from "../steering/skill-activations.js";
import type { SkillUsageStore, UsageEvent } from "../usage/skill-usage.js";
import type { Logger } from "../support/logger.js";

export interface UsageCountingDeps {
  usage: SkillUsageStore | undefined;
  activations: SkillActivationSink | undefined;
  processes: Pick<ProcessStore, "get">;
  clock: () => Date;
  logger: Pick<Logger, "warn">;
}

/** A counter that cannot be written loses its data point, never the request it counts. */
async function countOne(deps: UsageCountingDeps, event: UsageEvent): Promise<void> {
  try {
    await deps.usage?.count(event);
  } catch (error) {
    deps.logger.warn("Could not count skill usage", { name: event.name, counter: event.counter, error });
  }
}

/**
 * One ADD per activation the request reported: a request (a turn) that activated nothing writes
 * nothing. The level comes from the activation itself, else from the written process.
 */
export async function countUsage(
  deps: UsageCountingDeps,
  process: Process,
  activated: readonly SkillActivation[] | undefined,
): Promise<void> {
  if (!deps.usage || !activated || activated.length === 0) return;
  const at = deps.clock();
  // The ADDs are independent: a turn whose triggers activate several skills waits for one round trip, not one each.
  await Promise.all(
    activated.map((a) => {
      const source = a.source ?? process.activeSkills.find((s) => s.name === a.name)?.resolvedFromScope ?? null;
      // A USER skill of this process came from its owner's `_user_` level (the store keeps an owner for private rows only).
      return countOne(deps, {
        tenant: process.tenant,
        projectId: process.projectId,
        name: a.name,
        source,
        owner: process.userId,
        counter: a.path,
        at,
      });
    }),
  );
}

/** Whose refusal it is: the project it is counted for and the user whose process asked. */
interface RefusalWhere {
  tenant: string;
  projectId: string | undefined;
  userId: string | undefined;
}

/** One refusal: the EMF line, then (with a project) one `refused` ADD under its code. Neither fails the request. */
async function countOneRefusal(
  deps: UsageCountingDeps,
  where: RefusalWhere,
  refusal: Pick<SkillRefusal, "name" | "code" | "source">,
  at: Date,
): Promise<void> {
  const { name, code } = refusal;
  const source = refusal.source ?? null;
  try {
    deps.activations?.skillRefused?.(name, code, { tenant: where.tenant, projectId: where.projectId, source });
  } catch (error) {
    deps.logger.warn("Could not record activation metrics", { name, error });
  }
  // A private row (a USER skill's, or one of unknown level) is the asking user's.
  if (where.projectId !== undefined)
    await countOne(deps, {
      tenant: where.tenant,
      projectId: where.projectId,
      name,
      source,
      owner: where.userId,
      counter: "refused",
      code,
      at,
    });
}

/**
 * Activations a successful request tried and could not apply (a trigger whose `activate:` failed):
 * one `refused` ADD each, under its code, for the written process's project.
 */
export async function countRefusals(
  deps: UsageCountingDeps,
  process: Process,
  refused: readonly SkillRefusal[] | undefined,
): Promise<void> {
  if (!refused || refused.length === 0) return;
  const at = deps.clock();
  await Promise.all(
    refused.map((refusal) =>
      countOneRefusal(deps, { tenant: process.tenant, projectId: process.projectId, userId: process.userId }, refusal, at),
    ),
  );
}

const ACTIVATING_KINDS: ReadonlySet<string> = new Set(["skill.activate", "process.spawnActivate"]);

/**
 * A refused ACTIVATE (or a worker's first activation) counts as `refused`, under its code, for its
 * project. Its level is unknown (null): the refusal came before or instead of applying the skill,
 * so the row is the asking user's alone (the name may be their private skill). Producers put the
 * project and the user on the lane message; only a message without them reads the process, and
 * only when there is a store to count in.
 */
export async function countRefusal(deps: UsageCountingDeps, message: LaneMessage, code: string): Promise<void> {
  if (!ACTIVATING_KINDS.has(message.kind)) return;
  const name = (message.payload as { skillName?: unknown } | undefined)?.skillName;
  if (typeof name !== "string") return;
  try {
    const known =
      message.projectId !== undefined && message.user ? { projectId: message.projectId, userId: message.user.login } : undefined;
    const process = known || !deps.usage ? undefined : await deps.processes.get(message.tenant, message.processId);
    const where = {
      tenant: message.tenant,
      projectId: known?.projectId ?? process?.projectId ?? message.projectId,
      userId: known?.userId ?? process?.userId,
    };
    await countOneRefusal(deps, where, { name, code }, deps.clock());
  } catch (error) {
    deps.logger.warn("Could not count skill usage", { name, counter: "refused", error });
  }
}
