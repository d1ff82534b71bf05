import type { ResolvedSkill } from "../resolved-skill.js";
import { bindArguments } from "../skill-argument-binder.js";
import { capPatternTriggers } from "./trigger-caps.js";
import type { CappedListing } from "./trigger-caps.js";
import type { BlockCause, SkillTriggerMatcher, TriggerFilterable, TriggeredSkills } from "./skill-trigger-matcher.js";
import type { TriggerTimeBudget } from "./trigger-time-budget.js";

/** What the turn's rule reads of a skill; ResolvedSkill satisfies it, so does a definition with its level. */
export type TriggerActivatable = TriggerFilterable & Pick<ResolvedSkill, "source" | "run" | "lifecycle" | "arguments">;

/** Why a matched trigger does not activate its skill, in the activation ledger's words. */
export type TriggerBlockReason = "already-active" | "disabled" | "not-allowed" | "spawn-only" | "shot" | "argument-missing";

/** The process side of the filter; trigger evals have no process: nothing active, no whitelist. */
export interface TriggerProcessFilter {
  activeNames: Iterable<string>;
  allowedSkills?: readonly string[] | null | undefined;
}

export interface TurnTriggerMatch<T> {
  /**
   * Which skills of over-cap levels lost their PATTERN triggers. The candidates handed out are the
   * listed skills themselves, still holding those patterns: read a candidate's triggers through it.
   */
  capped: CappedListing<T>;
  matched: TriggeredSkills<T>;
  /** With `explain`: candidates whose trigger matched but that a turn would not activate, and why. */
  blocked: { candidate: T; reason: TriggerBlockReason }[];
}

/**
 * The turn's trigger rule (spec §4a, trigger-hook.ts): the per-level pattern caps, then the
 * matcher with the candidate filter and `isTriggerable`. The trigger hook and the trigger evals
 * both call it, so an eval says what a turn would do.
 */
export function matchTriggersForTurn<T extends TriggerActivatable>(
  available: readonly T[],
  message: string,
  matcher: SkillTriggerMatcher,
  process: TriggerProcessFilter,
  budget: TriggerTimeBudget,
  explain: "matched" | "all" | undefined,
): TurnTriggerMatch<T> {
  const capped = capPatternTriggers(available);
  const matched = matcher.triggered(
    available,
    message,
    { ...process, eligible: isTriggerable, explain, patternsOff: capped.patternsOff },
    budget,
  );
  const blocked = (matched.blocked ?? []).map(({ candidate, cause }) => ({ candidate, reason: blockReasonOf(candidate, cause) }));
  return { capped, matched, blocked };
}

/** The filter's causes in the ledger's words, the skill's own conditions in the order an author would look for them. */
export function blockReasonOf(skill: TriggerActivatable, cause: BlockCause): TriggerBlockReason {
  if (cause === "active") return "already-active";
  if (cause !== "ineligible") return cause;
  if (skill.run.target === "spawn") return "spawn-only";
  if (skill.lifecycle === "shot") return "shot";
  return "argument-missing";
}

/**
 * Not spawn, not shot, binds without arguments: depends on the skill only (the matcher caches
 * its answers per index by this function's identity).
 * - `run.target: spawn` skills never trigger: only the explicit path spawns (§2c);
 * - `lifecycle: shot` skills never trigger: a shot is a command, and firing a command on a
 *   keyword would be as surprising as spawning;
 * - a skill with a required argument cannot be triggered (a trigger brings no arguments).
 */
export function isTriggerable(skill: TriggerActivatable): boolean {
  return skill.run.target !== "spawn" && skill.lifecycle !== "shot" && bindsWithoutArguments(skill);
}

function bindsWithoutArguments(skill: TriggerActivatable): boolean {
  try {
    bindArguments(skill.name, skill.arguments, undefined);
    return true;
  } catch {
    return false;
  }
}
