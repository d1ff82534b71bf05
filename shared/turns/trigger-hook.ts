import type { Process } from "../processes/process.js";
import type { ResolvedSkill } from "../skills/resolved-skill.js";
import { bindArguments } from "../skills/skill-argument-binder.js";
import { triggerCandidates } from "../skills/skill-trigger-matcher.js";
import type { SkillTriggerMatcher } from "../skills/skill-trigger-matcher.js";

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
): ResolvedSkill[] {
  // One index per listing (the catalogue hands out the same array while nothing changed), and the
  // per-listing part of the filter is computed once per listing too; only the per-process part
  // (active, whitelist) runs each turn, while matching.
  const triggerable = triggerableOf(available);
  const active = new Set(process.activeSkills.map((s) => s.name));
  const allowed = process.allowedSkillsOverride === null ? undefined : new Set(process.allowedSkillsOverride);
  const accept = (skill: ResolvedSkill): boolean =>
    triggerable.has(skill) && !active.has(skill.name) && (allowed === undefined || allowed.has(skill.name));
  const matched = new Set(matcher.indexFor(available).match(message, accept));
  return available.filter((skill) => accept(skill) && matched.has(skill.name));
}

const triggerableByListing = new WeakMap<readonly ResolvedSkill[], ReadonlySet<ResolvedSkill>>();

/** Enabled, has triggers, not spawn, not shot, binds without arguments: depends on the listing only. */
function triggerableOf(available: readonly ResolvedSkill[]): ReadonlySet<ResolvedSkill> {
  let set = triggerableByListing.get(available);
  if (set === undefined) {
    set = new Set(
      triggerCandidates(available, { activeNames: [], allowedSkills: null }).filter(
        (skill) => skill.run.target !== "spawn" && skill.lifecycle !== "shot" && bindsWithoutArguments(skill),
      ),
    );
    triggerableByListing.set(available, set);
  }
  return set;
}

function bindsWithoutArguments(skill: ResolvedSkill): boolean {
  try {
    bindArguments(skill.name, skill.arguments, undefined);
    return true;
  } catch {
    return false;
  }
}
