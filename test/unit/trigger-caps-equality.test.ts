import { describe, expect, it } from "vitest";
import { resolvedSkill } from "../../bench/compose-bench-helpers.js";
import type { SkillScope } from "../../shared/documents/cascade-scope.js";
import type { Process } from "../../shared/processes/process.js";
import type { ListedSkill } from "../../shared/skills/resolved-skill.js";
import type { SkillTrigger } from "../../shared/skills/skill-frontmatter.js";
import { SkillTriggerMatcher } from "../../shared/skills/triggers/skill-trigger-matcher.js";
import { TriggerPatternCache } from "../../shared/skills/triggers/skill-trigger-pattern.js";
import { blockReasonOf, isTriggerable } from "../../shared/skills/triggers/trigger-activation.js";
import { MAX_PATTERN_TRIGGERS_PER_LEVEL, MAX_PATTERN_TRIGGERS_PER_SKILL, patternCount } from "../../shared/skills/triggers/trigger-caps.js";
import { TriggerMatchExplainer, type TriggerMatch } from "../../shared/skills/triggers/trigger-match-detail.js";
import { TriggerTimeBudget } from "../../shared/skills/triggers/trigger-time-budget.js";
import type { BlockedTrigger } from "../../shared/turns/activation-ledger.js";
import { triggeredSkills, type TriggerExplain, type TriggerHookResult } from "../../shared/turns/trigger-hook.js";
import { prng } from "../support/seeded-random.js";

/**
 * Issue 27: the per-level PATTERN cap no longer copies the over-cap skills without their patterns
 * (~6 000 copies on a cold 10 000-skill turn); the trigger index leaves those patterns out by
 * position and the match detail by skill. What a turn sees must not move: over random listings
 * (every level, some over their caps, mixed triggers, disabled and ineligible skills) and random
 * messages, active sets, whitelists and time budgets, the trigger hook answers what the copying
 * path (kept below as the reference) answered: the same fired, skipped, blocked and not-matched
 * skills, the same over-cap names, and the same ledger facts (which trigger fired, by its place).
 */

// ---- The reference: the copying cap and the trigger hook as they were ----

interface ReferenceCapped<T> {
  listing: readonly T[];
  dropped: readonly string[];
}

function referenceCap<T extends { name: string; source: SkillScope; triggers: readonly SkillTrigger[] }>(
  listing: readonly T[],
): ReferenceCapped<T> {
  const used: Partial<Record<SkillScope, number>> = {};
  const dropped: string[] = [];
  let changed = false;
  const out = listing.map((skill) => {
    const n = patternCount(skill.triggers);
    if (n === 0) return skill;
    const total = (used[skill.source] ?? 0) + n;
    if (total <= MAX_PATTERN_TRIGGERS_PER_LEVEL[skill.source] && n <= MAX_PATTERN_TRIGGERS_PER_SKILL) {
      used[skill.source] = total;
      return skill;
    }
    dropped.push(skill.name);
    changed = true;
    return Object.freeze({ ...skill, triggers: Object.freeze(skill.triggers.filter((t) => t.type !== "PATTERN")) });
  });
  return { listing: changed ? Object.freeze(out) : listing, dropped: Object.freeze(dropped) };
}

function referenceHook(
  available: readonly ListedSkill[],
  process: Pick<Process, "activeSkills" | "allowedSkillsOverride">,
  message: string,
  matcher: SkillTriggerMatcher,
  budget: TriggerTimeBudget,
  explain: TriggerExplain,
): TriggerHookResult {
  const capped = referenceCap(available);
  const matched = matcher.triggered(
    capped.listing,
    message,
    {
      activeNames: process.activeSkills.map((s) => s.name),
      allowedSkills: process.allowedSkillsOverride,
      eligible: isTriggerable,
      explain,
    },
    budget,
  );
  const keptOut = (matched.blocked ?? []).map(({ candidate, cause }) => ({ candidate, reason: blockReasonOf(candidate, cause) }));
  let explainer: TriggerMatchExplainer | undefined;
  const matches = new Map<string, TriggerMatch>();
  const describe = (skill: ListedSkill): TriggerMatch | undefined => {
    explainer ??= new TriggerMatchExplainer(message, budget);
    const match = explainer.explain(skill);
    if (match === undefined) return undefined;
    const original = capped.listing === available ? skill : available.find((s) => s.name === skill.name);
    const at = original === undefined || original === skill ? match.index : original.triggers.indexOf(skill.triggers[match.index] as never);
    const described = { ...match, index: at >= 0 ? at : match.index };
    matches.set(skill.name, described);
    return described;
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

// ---- Random listings and turns ----

const WORDS = ["deploy", "staging", "review", "ship", "invoice", "refund", "rollback", "release", "hotfix", "ticket", "pr", "merge"];
const PATTERNS = [
  (k: number) => `deploy(ed|ing)? ${k % 5}`,
  (k: number) => `ticket-${k % 9}`,
  (k: number) => `(ship|push) it ${k % 4}`,
  () => "\\d{3}",
  (k: number) => `rel(ease)? v${k % 6}`,
  () => "review",
  (k: number) => `^${WORDS[k % WORDS.length]}`,
];
const LEVELS: readonly SkillScope[] = ["USER", "PROJECT", "VANCE", "RESOURCE"];

/** `pressure` 0: within every cap; 1: a few skills over the per-skill cap; 2: levels over their caps too (most of the time). */
function listingOf(random: () => number, id: number, pressure: number): ListedSkill[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const skills: ListedSkill[] = [];
  for (const source of LEVELS) {
    const count = Math.floor(random() * (source === "USER" ? (pressure === 2 ? 25 : 12) : pressure === 2 ? 90 : 40));
    const heavy = pressure === 2 && random() < 0.7;
    for (let s = 0; s < count; s++) {
      const triggers: SkillTrigger[] = [];
      const keywordCount = Math.floor(random() * 3);
      const roll = random();
      const patternCount =
        roll < 0.3 ? 0 : roll < 0.9 || pressure === 0 ? 1 + Math.floor(random() * (heavy ? 14 : 5)) : 18 + Math.floor(random() * 6);
      for (let k = 0; k < keywordCount; k++) triggers.push({ type: "KEYWORDS", keywords: [pick(WORDS), `kw${id}x${s % 7}`] });
      for (let p = 0; p < patternCount; p++) {
        const trigger: SkillTrigger = { type: "PATTERN", pattern: pick(PATTERNS)(Math.floor(random() * 40)) };
        // Patterns before, between and after the keywords: the ledger's index is the trigger's place as written.
        triggers.splice(Math.floor(random() * (triggers.length + 1)), 0, trigger);
      }
      const shape = random();
      skills.push(
        resolvedSkill({
          name: `${source.toLowerCase()}-${s}`,
          source,
          triggers,
          enabled: shape >= 0.05,
          ...(shape >= 0.05 && shape < 0.1 ? { run: { target: "spawn" as const, recipe: "open" } } : {}),
          ...(shape >= 0.1 && shape < 0.15 ? { lifecycle: "shot" as const } : {}),
          ...(shape >= 0.15 && shape < 0.2 ? { arguments: [{ name: "target", type: "string" as const, required: true }] } : {}),
        } as Partial<ListedSkill> & { name: string }),
      );
    }
  }
  return skills;
}

function messageOf(random: () => number, id: number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const parts = Array.from({ length: 1 + Math.floor(random() * 8) }, () => {
    const roll = random();
    if (roll < 0.4) return pick(WORDS);
    if (roll < 0.5) return `kw${id}x${Math.floor(random() * 7)}`;
    if (roll < 0.6) return `deploying ${Math.floor(random() * 5)}`;
    if (roll < 0.7) return `ticket-${Math.floor(random() * 9)}`;
    if (roll < 0.8) return `ship it ${Math.floor(random() * 4)} release v${Math.floor(random() * 6)}`;
    if (roll < 0.9) return String(Math.floor(random() * 10_000));
    return "and then";
  });
  return parts.join(random() < 0.5 ? " " : ", ");
}

/** A budget that is spent after `reads` clock reads (or never): the same reads give the same skips on both paths. */
function budgetOf(random: () => number): TriggerTimeBudget {
  if (random() < 0.7) return new TriggerTimeBudget(1e9);
  const reads = 1 + Math.floor(random() * 40);
  let read = 0;
  return new TriggerTimeBudget(1, () => (read++ < reads ? 0 : 1e12));
}

function processOf(random: () => number, listing: readonly ListedSkill[]): Pick<Process, "activeSkills" | "allowedSkillsOverride"> {
  const some = (share: number): string[] => listing.filter(() => random() < share).map((s) => s.name);
  const active = some(0.05).map((name) => ({ name }));
  const roll = random();
  const allowed = roll < 0.5 ? undefined : roll < 0.6 ? null : roll < 0.65 ? [] : some(0.5);
  return { activeSkills: active, allowedSkillsOverride: allowed } as unknown as Pick<Process, "activeSkills" | "allowedSkillsOverride">;
}

/** What a turn reads of a hook result, skills by name (the reference hands out copies, the new path the listed skills). */
function seen(result: TriggerHookResult): unknown {
  return {
    fired: result.fired.map((s) => s.name),
    skipped: result.skipped.map((s) => s.name),
    blocked: result.blocked?.map(({ candidate, cause }) => [candidate.name, cause]),
    notMatched: result.notMatched?.map(({ candidate, evaluated }) => [candidate.name, evaluated]),
    budgetMs: result.budgetMs,
    overCap: result.overCap,
    matches: [...result.facts.matches],
    facts: { blocked: result.facts.blocked, notMatched: result.facts.notMatched },
  };
}

describe("the pattern cap without copies", () => {
  it("answers as the copying cap did, turn after turn, over random listings", () => {
    const random = prng(2711);
    const cache = new TriggerPatternCache();
    const matcher = new SkillTriggerMatcher(cache);
    const reference = new SkillTriggerMatcher(cache);
    const uncapped = new SkillTriggerMatcher(cache);
    const exercised = {
      withinCaps: 0,
      overCap: 0,
      droppedFired: 0,
      droppedPatternHit: 0,
      patternFired: 0,
      skipped: 0,
      blocked: 0,
      notMatched: 0,
    };

    for (let l = 0; l < 36; l++) {
      const listing = Object.freeze(listingOf(random, l, l % 3));
      const dropped = new Set(referenceCap(listing).dropped);
      const overCapSkills = listing.filter((s) => dropped.has(s.name));
      for (let m = 0; m < 20; m++) {
        const message = messageOf(random, l);
        const process = processOf(random, listing);
        const explain: TriggerExplain = random() < 0.5 ? "matched" : "all";
        const budgetSeed = Math.floor(random() * 2 ** 31);

        const ours = triggeredSkills(listing, process, message, matcher, budgetOf(prng(budgetSeed)), explain);
        const theirs = referenceHook(listing, process, message, reference, budgetOf(prng(budgetSeed)), explain);

        expect(seen(ours)).toEqual(seen(theirs));
        // The skills handed out are the listed ones themselves.
        for (const skill of [...ours.fired, ...ours.skipped, ...(ours.blocked ?? []).map((b) => b.candidate)])
          expect(listing).toContain(skill);

        exercised.withinCaps += dropped.size === 0 ? 1 : 0;
        exercised.overCap += dropped.size > 0 ? 1 : 0;
        exercised.droppedFired += ours.fired.filter((s) => dropped.has(s.name)).length;
        // Over-cap skills whose patterns (had they been kept) would have matched, and that did not fire.
        const firedNames = new Set(ours.fired.map((s) => s.name));
        exercised.droppedPatternHit += uncapped.match(overCapSkills, message).filter((name) => !firedNames.has(name)).length;
        exercised.patternFired += [...ours.facts.matches.values()].filter((t) => t.type === "PATTERN").length;
        exercised.skipped += ours.skipped.length;
        exercised.blocked += ours.facts.blocked.length;
        exercised.notMatched += ours.facts.notMatched.length;
      }
    }

    // The cases that matter were met: levels over their caps, over-cap skills firing by keywords, patterns firing, skips, blocks.
    for (const [what, count] of Object.entries(exercised)) expect(count, what).toBeGreaterThan(10);
  });

  it("never reports a dropped pattern as the trigger that fired, even where it would match", () => {
    // Prepare: 21 patterns (over the per-skill cap) around one keyword trigger; the message hits the patterns first.
    const patterns = Array.from({ length: 21 }, (_, i): SkillTrigger => ({ type: "PATTERN", pattern: `deploy ${i}` }));
    const skill = resolvedSkill({
      name: "over",
      source: "USER",
      triggers: [...patterns.slice(0, 10), { type: "KEYWORDS", keywords: ["staging"] }, ...patterns.slice(10)],
    });
    const only = resolvedSkill({ name: "only", source: "USER", triggers: patterns });
    const listing = Object.freeze([skill, only]);
    const process = { activeSkills: [], allowedSkillsOverride: undefined } as unknown as Pick<
      Process,
      "activeSkills" | "allowedSkillsOverride"
    >;
    const matcher = new SkillTriggerMatcher(new TriggerPatternCache());

    // Act
    const staging = triggeredSkills(listing, process, "deploy 3 to staging", matcher, new TriggerTimeBudget(1e9), "all");
    const patternOnly = triggeredSkills(listing, process, "deploy 3", matcher, new TriggerTimeBudget(1e9), "all");

    // Assess
    expect(staging.fired).toEqual([skill]);
    expect(staging.facts.matches.get("over")).toEqual({ type: "KEYWORDS", index: 10, keywords: ["staging"] });
    expect(staging.overCap).toEqual(["over", "only"]);
    // A skill left with no trigger is no candidate at all: neither fired nor "not matched".
    expect(patternOnly.fired).toEqual([]);
    expect(patternOnly.facts.notMatched).toEqual([{ name: "over" }]);
  });
});
