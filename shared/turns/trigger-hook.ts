import type { Process } from "../processes/process.js";
import type { ResolvedSkill } from "../skills/resolved-skill.js";
import { bindArguments } from "../skills/skill-argument-binder.js";
import type { SkillTriggerMatcher } from "../skills/triggers/skill-trigger-matcher.js";

/**
 * The pre-turn hook of spec §4a: which of the listed skills does this user message activate
 * (oneShot)? Candidates are enabled, have triggers, are not active already (so an explicit
 * activation is never downgraded, §4c) and are inside the recipe whitelist (§7b). On top of the
 * spec's filter:
 * - `run.target: spawn` skills never trigger: only the explicit path spawns (§2c);
 * - `lifecycle: shot` skills never trigger: a shot cannot be "active for one turn", it is a
 *   command, and firing a command on a keyword would be as surprising as spawning;
 * - a skill with a required argument cannot be triggered (a trigger brings no arguments).
 */
export async function triggeredSkills(
  available: readonly ResolvedSkill[],
  process: Pick<Process, "activeSkills" | "allowedSkillsOverride">,
  message: string,
  matcher: SkillTriggerMatcher,
): Promise<{ triggered: ResolvedSkill[]; warnings: string[] }> {
  // One index per listing (the catalogue hands out the same array while nothing changed); the
  // per-listing part of the filter is cached with it, so a turn only looks at its active skills
  // and whitelist, never at every listed skill. Matching runs under the matcher's per-turn time
  // budget and yields to the event loop between slices (trigger-time-budget.ts).
  const { triggered, skipped } = await matcher.triggeredWithin(available, message, {
    activeNames: process.activeSkills.map((s) => s.name),
    allowedSkills: process.allowedSkillsOverride,
    eligible: isTriggerable,
  });
  return { triggered, warnings: skipped.length === 0 ? [] : [skippedWarning(skipped, matcher.time.budgetMs)] };
}

/** Names shown in the warning; the rest are counted (warnings stay short). */
const MAX_NAMED_SKIPPED = 20;

function skippedWarning(skipped: readonly ResolvedSkill[], budgetMs: number): string {
  const names = skipped.slice(0, MAX_NAMED_SKIPPED).map((s) => `'${s.name}'`);
  const more = skipped.length > MAX_NAMED_SKIPPED ? ` and ${skipped.length - MAX_NAMED_SKIPPED} more` : "";
  return `Trigger matching used its ${budgetMs} ms budget for this turn; the PATTERN triggers of ${skipped.length} skill(s) were not checked and they were not auto-activated: ${names.join(", ")}${more}`;
}

/** Not spawn, not shot, binds without arguments: depends on the skill only. */
function isTriggerable(skill: ResolvedSkill): boolean {
  return skill.run.target !== "spawn" && skill.lifecycle !== "shot" && bindsWithoutArguments(skill);
}

function bindsWithoutArguments(skill: ResolvedSkill): boolean {
  try {
    bindArguments(skill.name, skill.arguments, undefined);
    return true;
  } catch {
    return false;
  }
}
