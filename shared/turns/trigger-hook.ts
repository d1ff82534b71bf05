import type { Process } from "../processes/process.js";
import type { ListedSkill } from "../skills/resolved-skill.js";
import type { SkillTriggerMatcher, TriggeredSkills } from "../skills/triggers/skill-trigger-matcher.js";
import { matchTriggersForTurn } from "../skills/triggers/trigger-activation.js";
import { TriggerMatchExplainer } from "../skills/triggers/trigger-match-detail.js";
import type { TriggerMatch } from "../skills/triggers/trigger-match-detail.js";
import { TriggerTimeBudget } from "../skills/triggers/trigger-time-budget.js";
import type { ActivationFacts, BlockedTrigger } from "./activation-ledger.js";

/** How much of the activation a turn explains: matches only (every turn), or every skill with triggers (`explain=all` preview). */
export type TriggerExplain = "matched" | "all";

export type TriggerHookResult = TriggeredSkills<ListedSkill> & {
  budgetMs: number;
  overCap: readonly string[];
  /** The ledger's view of this message (activation-ledger.ts); `matches` holds the fired skills' triggers too. */
  facts: ActivationFacts;
};

/**
 * The pre-turn hook of spec §4a: which of the listed skills does this user message activate
 * (oneShot)? Candidates are enabled, have triggers, are not active already (so an explicit
 * activation is never downgraded, §4c) and are inside the recipe whitelist (§7b). On top of the
 * spec's filter, spawn and shot skills and skills with a required argument never trigger
 * (`isTriggerable` in trigger-activation.ts, shared with the trigger evals).
 *
 * The skills the filter kept out whose triggers matched anyway are reported with the reason
 * (`facts.blocked`), and every match with the trigger that made it (`facts.matches`).
 */
export function triggeredSkills(
  available: readonly ListedSkill[],
  process: Pick<Process, "activeSkills" | "allowedSkillsOverride">,
  message: string,
  matcher: SkillTriggerMatcher,
  budget: TriggerTimeBudget = new TriggerTimeBudget(),
  explain: TriggerExplain = "matched",
): TriggerHookResult {
  // One index per listing (the catalogue hands out the same array while nothing changed); the
  // per-listing part of the filter is cached with it, so a turn only looks at its active skills
  // and whitelist, never at every listed skill.
  // Over-cap levels lose their patterns here (a document written past the API); the turn says so.
  const {
    capped,
    matched,
    blocked: keptOut,
  } = matchTriggersForTurn(
    available,
    message,
    matcher,
    { activeNames: process.activeSkills.map((s) => s.name), allowedSkills: process.allowedSkillsOverride },
    budget,
    explain,
  );

  // Built on the first match only: a message that matches nothing pays nothing for explanations.
  let explainer: TriggerMatchExplainer | undefined;
  const matches = new Map<string, TriggerMatch>();
  const describe = (skill: ListedSkill): TriggerMatch | undefined => {
    explainer ??= new TriggerMatchExplainer(message, budget);
    // The candidates are the listed skills themselves: an over-cap one still holds the patterns the match left out.
    const match = explainer.explain(skill, !capped.patternsDropped(skill));
    if (match !== undefined) matches.set(skill.name, match);
    return match;
  };
  for (const skill of matched.fired) describe(skill);
  const blocked: BlockedTrigger[] = [
    ...keptOut.map(({ candidate, reason }) => ({ name: candidate.name, reason, trigger: describe(candidate) })),
    ...matched.skipped.map((skill) => ({ name: skill.name, reason: "time-budget" as const })),
  ];
  const notMatched = (matched.notMatched ?? []).map(({ candidate, evaluated }) => ({
    name: candidate.name,
    ...(evaluated ? {} : { reason: "time-budget" }),
  }));
  return { ...matched, budgetMs: budget.ms, overCap: capped.dropped, facts: { matches, blocked, notMatched } };
}
