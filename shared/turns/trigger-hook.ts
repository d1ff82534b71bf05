import { capPatternTriggers } from "../skills/triggers/trigger-caps.js";
import type { Process } from "../processes/process.js";
import type { ResolvedSkill } from "../skills/resolved-skill.js";
import { bindArguments } from "../skills/skill-argument-binder.js";
import type { SkillTriggerMatcher, TriggeredSkills } from "../skills/triggers/skill-trigger-matcher.js";
import { TriggerTimeBudget } from "../skills/triggers/trigger-time-budget.js";

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
export function triggeredSkills(
  available: readonly ResolvedSkill[],
  process: Pick<Process, "activeSkills" | "allowedSkillsOverride">,
  message: string,
  matcher: SkillTriggerMatcher,
  budget: TriggerTimeBudget = new TriggerTimeBudget(),
): TriggeredSkills<ResolvedSkill> & { budgetMs: number; overCap: readonly string[] } {
  // One index per listing (the catalogue hands out the same array while nothing changed); the
  // per-listing part of the filter is cached with it, so a turn only looks at its active skills
  // and whitelist, never at every listed skill.
  // Over-cap levels lose their patterns here (a document written past the API); the turn says so.
  const capped = capPatternTriggers(available);
  const matched = matcher.triggered(capped.listing, message, {
    activeNames: process.activeSkills.map((s) => s.name),
    allowedSkills: process.allowedSkillsOverride,
    eligible: isTriggerable,
  }, budget);
  return { ...matched, budgetMs: budget.ms, overCap: capped.dropped };
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
