import type { ActiveSkillRef } from "../processes/process.js";
import type { TriggerMatch } from "../skills/triggers/trigger-match-detail.js";

export type ActivationOutcome = "active" | "activated" | "blocked" | "not-matched";

/**
 * Why a matching trigger did not activate its skill (API.md "Explainable activation"). The
 * catalog adds its own reasons for candidates it leaves out (`model-invocation-disabled`, …),
 * hence the open string.
 */
export type ActivationReason =
  | "disabled"
  | "not-allowed"
  | "already-active"
  | "argument-missing"
  | "spawn-only"
  | "shot"
  | "activate-failed"
  | "time-budget"
  | (string & {});

/** One row of a Turn's `activation`. */
export interface ActivationEntry {
  name: string;
  outcome: ActivationOutcome;
  activatedBy?: string;
  reason?: ActivationReason;
  trigger?: TriggerMatch;
  /** An active skill composed at the version its recipe pins (skillVersions), not the newest. */
  pinnedVersion?: string;
  /** `omitted-by-budget`: its relevance to the turn's messages (only when the catalog was ranked by relevance). */
  score?: number;
  /** `omitted-by-budget`: its 1-based place in the catalog's order (the listed entries come first). */
  rank?: number;
}

/** A matched trigger that did not activate its skill. */
export interface BlockedTrigger {
  name: string;
  reason: ActivationReason;
  trigger?: TriggerMatch | undefined;
}

/** What the trigger hook and the turn found out about activation, before the turn's write. */
export interface ActivationFacts {
  /** Trigger details by skill name, for every skill whose trigger matched (activated or not). */
  matches: ReadonlyMap<string, TriggerMatch>;
  blocked: readonly BlockedTrigger[];
  /** `explain=all` only: skills with triggers that did not match (`reason: time-budget` when they were not evaluated). */
  notMatched: readonly { name: string; reason?: ActivationReason }[];
  /** `explain=all` only: further entries another part of the turn explains (e.g. catalog candidates left out), appended as given. */
  explained?: readonly ActivationEntry[];
}

export const NO_ACTIVATION_FACTS: ActivationFacts = Object.freeze({ matches: new Map(), blocked: [], notMatched: [] });

/**
 * Matched-but-blocked entries per turn. A message can hit the triggers of hundreds of skills
 * outside a recipe's whitelist; the Turn travels in one request record (< 400 KB), so the ledger
 * names the first of them in listing order and says how many more there were in a warning.
 */
export const MAX_BLOCKED_ENTRIES = 100;
/** `not-matched` and further explained entries of an `explain=all` preview, together. */
export const MAX_EXPLAINED_ENTRIES = 2000;

/**
 * The Turn's `activation`: every active skill first, in the process's order (`activated` when
 * this turn's triggers added it), then the blocked matches in listing order, then — for an
 * `explain=all` preview — the skills whose triggers did not match and the further entries given.
 * One entry per skill name: an active skill whose trigger matched again stays `active` and
 * carries the trigger with `reason: already-active`.
 */
export function activationLedger(
  activeSkills: readonly ActiveSkillRef[],
  activatedNow: ReadonlySet<string>,
  facts: ActivationFacts,
  warnings: string[],
): ActivationEntry[] {
  const entries: ActivationEntry[] = [];
  const named = new Set<string>();
  for (const ref of activeSkills) {
    const trigger = facts.matches.get(ref.name);
    const now = activatedNow.has(ref.name);
    entries.push({
      name: ref.name,
      outcome: now ? "activated" : "active",
      activatedBy: activatedByOf(ref, now),
      ...(trigger !== undefined && !now ? { reason: "already-active" } : {}),
      ...(trigger !== undefined ? { trigger } : {}),
    });
    named.add(ref.name);
  }
  const blocked = facts.blocked.filter((b) => !named.has(b.name));
  for (const b of blocked.slice(0, MAX_BLOCKED_ENTRIES)) {
    entries.push({ name: b.name, outcome: "blocked", reason: b.reason, ...(b.trigger !== undefined ? { trigger: b.trigger } : {}) });
    named.add(b.name);
  }
  if (blocked.length > MAX_BLOCKED_ENTRIES) {
    warnings.push(
      `The activation ledger names ${MAX_BLOCKED_ENTRIES} of ${blocked.length} skills whose triggers matched but did not activate`,
    );
  }
  const explained: ActivationEntry[] = [
    ...facts.notMatched
      .filter((n) => !named.has(n.name))
      .map((n): ActivationEntry => ({ name: n.name, outcome: "not-matched", ...(n.reason !== undefined ? { reason: n.reason } : {}) })),
    ...(facts.explained ?? []),
  ];
  entries.push(...explained.slice(0, MAX_EXPLAINED_ENTRIES));
  if (explained.length > MAX_EXPLAINED_ENTRIES) {
    warnings.push(`The explained activation lists ${MAX_EXPLAINED_ENTRIES} of ${explained.length} further entries`);
  }
  return entries;
}

/**
 * How an active skill got there: the ref's own `activatedBy` when it carries one, else what the
 * ref tells (a recipe default), this turn's trigger, or an explicit activation.
 */
function activatedByOf(ref: ActiveSkillRef, now: boolean): string {
  const own = (ref as { activatedBy?: unknown }).activatedBy;
  if (typeof own === "string") return own;
  if (now) return "trigger";
  return ref.fromRecipe ? "recipe" : "explicit";
}

/** Adds the entries of an `explain=all` preview that another part of the turn explains (e.g. the catalog's candidates left out). */
export function withExplained(facts: ActivationFacts, explained: readonly ActivationEntry[]): ActivationFacts {
  return { ...facts, explained: [...(facts.explained ?? []), ...explained] };
}
