import { SkillLocked, SkillNotAllowedByRecipe } from "../errors.js";
import type { ActivatedBy, ActiveSkillRef, Process } from "../processes/process.js";
import type { SkillScope } from "../documents/cascade-scope.js";

/**
 * The pure rules of spec §4c, §7b, §7c and §7d over `activeSkills`. They take and return plain
 * values so the lane can apply them inside one deterministic store mutation.
 */

/** §7b: null = no restriction, [] = lockdown. */
export function isAllowedByRecipe(process: Pick<Process, "allowedSkillsOverride">, skillName: string): boolean {
  return process.allowedSkillsOverride === null || process.allowedSkillsOverride.includes(skillName);
}

export function assertAllowedByRecipe(process: Pick<Process, "allowedSkillsOverride" | "recipe">, skillName: string): void {
  if (!isAllowedByRecipe(process, skillName)) throw new SkillNotAllowedByRecipe(skillName, process.recipe);
}

export interface ExplicitActivation {
  name: string;
  source: SkillScope;
  oneShot: boolean;
  /** Raw rest stored with the activation; null when the skill does not consume it (§2b). */
  args: string | null;
  at: string;
  /** The path asking: `explicit` (default), `model` (skill_activate) or `spawn` (a worker's first request). */
  activatedBy?: Exclude<ActivatedBy, "trigger" | "recipe"> | undefined;
}

/**
 * Explicit activation (§4b, §7d). A fresh skill is appended (activation order is prompt order).
 * An active one is a parameter update: args are replaced, the entry keeps its place and
 * `activatedAt`. A recipe skill keeps `fromRecipe` and stays sticky whatever `--once` says
 * (recipe author intent wins); a user skill takes the requested lifespan, so `--once` flips a
 * sticky one to oneShot and a plain activation makes a (possibly trigger-made) oneShot sticky.
 * `activatedBy` records the latest path that activated the skill, except that a recipe skill
 * stays `recipe` (it is the recipe's, whoever re-asserted it).
 */
export function upsertExplicit(skills: readonly ActiveSkillRef[], activation: ExplicitActivation): ActiveSkillRef[] {
  const index = skills.findIndex((s) => s.name === activation.name);
  if (index < 0) {
    return [
      ...skills,
      {
        name: activation.name,
        resolvedFromScope: activation.source,
        oneShot: activation.oneShot,
        fromRecipe: false,
        activatedAt: activation.at,
        args: activation.args,
        activatedBy: activation.activatedBy ?? "explicit",
      },
    ];
  }
  const existing = skills[index]!;
  const updated: ActiveSkillRef = {
    ...existing,
    resolvedFromScope: activation.source,
    oneShot: existing.fromRecipe ? false : activation.oneShot,
    args: activation.args,
    activatedBy: existing.fromRecipe ? "recipe" : (activation.activatedBy ?? "explicit"),
  };
  return skills.map((s, i) => (i === index ? updated : s));
}

/**
 * Trigger activation (§4a, §4c): oneShot, no args, and never on top of an existing entry, so an
 * explicit activation is never downgraded.
 */
export function addTriggered(skills: readonly ActiveSkillRef[], name: string, source: SkillScope, at: string): ActiveSkillRef[] {
  if (skills.some((s) => s.name === name)) return [...skills];
  return [
    ...skills,
    { name, resolvedFromScope: source, oneShot: true, fromRecipe: false, activatedAt: at, args: null, activatedBy: "trigger" },
  ];
}

/** §7c: on a locked recipe, the recipe's own skills stay. */
export const isClearable = (process: Pick<Process, "locked">, entry: ActiveSkillRef): boolean => !(process.locked && entry.fromRecipe);

/** `/skill clear <name>`; throws SkillLocked for a recipe skill of a locked recipe. Returns the removed entry, if any. */
export function planClear(process: Process, name: string): { removed: ActiveSkillRef | undefined; remaining: ActiveSkillRef[] } {
  const removed = process.activeSkills.find((s) => s.name === name);
  if (removed === undefined) return { removed: undefined, remaining: [...process.activeSkills] };
  if (!isClearable(process, removed)) throw new SkillLocked(name, process.recipe);
  return { removed, remaining: process.activeSkills.filter((s) => s.name !== name) };
}

/** `/skill clear`: everything clearable goes (§7c: on a locked recipe every non-recipe skill). */
export function planClearAll(process: Process): { removed: ActiveSkillRef[]; remaining: ActiveSkillRef[] } {
  const removed = process.activeSkills.filter((s) => isClearable(process, s));
  return { removed, remaining: process.activeSkills.filter((s) => !isClearable(process, s)) };
}
