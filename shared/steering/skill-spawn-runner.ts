import { InvalidRequest, RecipeNotFound, SkillNotAllowedByRecipe } from "../errors.js";
import type { LaneUser } from "../lanes/lane-message.js";
import { deterministicChildId } from "../processes/process-ids.js";
import { nextIndexedName, spawnProcess } from "../processes/process-spawn.js";
import type { SpawnDeps } from "../processes/process-spawn.js";
import type { Process, ProcessChild } from "../processes/process.js";
import type { ResolvedSkill } from "../skills/resolved-skill.js";
import type { LaneRequests } from "./lane-requests.js";
import { derivedRequestId, scopeOf } from "./steer-context.js";

export interface SpawnInput {
  parent: Process;
  skill: ResolvedSkill;
  /** The raw rest of the line; it travels to the child, the caller keeps nothing (§2c). */
  args: string | null;
  requestId: string;
  user: LaneUser | null;
}

export interface SkillSpawnRunnerDeps {
  spawn: SpawnDeps;
  requests: LaneRequests;
}

/**
 * SkillSpawnRunner (spec §2c): creates the worker for a `run.target: spawn` skill and hands the
 * activation to the worker's own lane (`process.spawnActivate`), where the skill becomes a normal
 * sticky skill and its `action:` the worker's first message.
 *
 * Everything is checked before anything is created (recipe exists, skill allowed there). The
 * child id derives from (parent, requestId), so a redelivered request finds its child instead of
 * spawning twice, and the child activation has a derived requestId, so it is applied once.
 * Names are `<skill>-1`, `<skill>-2`, …: a taken name is retried with the next index, never
 * reported as success.
 */
export class SkillSpawnRunner {
  constructor(private readonly deps: SkillSpawnRunnerDeps) {}

  async spawn(input: SpawnInput): Promise<ProcessChild> {
    const { parent, skill, requestId } = input;
    const recipeName = skill.run.recipe;
    if (recipeName === undefined) throw new InvalidRequest(`Skill '${skill.name}' spawns a worker but names no run.recipe`);
    const scope = scopeOf(parent);
    const recipe = await this.deps.spawn.recipes.load(scope, recipeName);
    if (!recipe) throw new RecipeNotFound(recipeName);
    if (recipe.allowedSkills !== null && !recipe.allowedSkills.includes(skill.name)) {
      throw new SkillNotAllowedByRecipe(skill.name, recipe.name);
    }

    const processId = deterministicChildId(parent.processId, requestId);
    const existing = await this.deps.spawn.processes.get(parent.tenant, processId);
    const child =
      existing ??
      (await nextIndexedName(
        skill.name,
        (name) =>
          spawnProcess(this.deps.spawn, {
            tenant: parent.tenant,
            sessionId: parent.sessionId,
            userId: parent.userId,
            projectId: parent.projectId,
            recipe: recipe.name,
            name,
            parentProcessId: parent.processId,
            processId,
          }),
        { firstIndex: nextIndexAmong(parent.children, skill.name) },
      ));

    await this.deps.requests.enqueue({
      tenant: parent.tenant,
      processId: child.processId,
      projectId: parent.projectId,
      user: input.user,
      kind: "process.spawnActivate",
      payload: { skillName: skill.name, args: input.args, parentProcessId: parent.processId, parentRequestId: requestId },
      requestId: derivedRequestId(requestId, "spawn"),
    });
    return { processId: child.processId, name: child.name };
  }
}

/** Probing starts past the workers this parent already spawned for the skill; others are found by collision. */
function nextIndexAmong(children: readonly ProcessChild[], base: string): number {
  let highest = 0;
  for (const child of children) {
    if (!child.name.startsWith(`${base}-`)) continue;
    const index = Number(child.name.slice(base.length + 1));
    if (Number.isSafeInteger(index) && index > highest) highest = index;
  }
  return highest + 1;
}
