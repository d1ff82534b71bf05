import type { SkillTrigger } from "./skill-frontmatter.js";
import {
  compileTriggerPattern,
  prepareTriggerInput,
  sharedTriggerPatternCache,
  type TriggerInput,
  type TriggerPatternCache,
} from "./skill-trigger-pattern.js";

const MAX_CACHED_KEYWORDS = 20_000;

/** What the matcher needs of a skill; ResolvedSkill satisfies it. */
export interface TriggerCandidate {
  readonly name: string;
  readonly triggers: readonly SkillTrigger[];
}

/**
 * The auto-trigger of spec §4a: which candidate skills does a user message activate?
 *
 * - PATTERN: RE2 `find` on the lowercased input, case-insensitive (skill-trigger-pattern.ts).
 * - KEYWORDS: the lowercased input is split on `[^a-z0-9]+`, tokens shorter than 2 characters are
 *   dropped; a trigger fires when at least half of its keywords occur as whole tokens. Keywords
 *   are tokenized by the same rule, so "pull request" (or "pull-request") occurs when its tokens
 *   appear consecutively; a keyword that yields no token (e.g. "c", "ä") never occurs but still
 *   counts towards the total.
 * - A skill matches when any of its triggers fires. A pattern that does not compile (it should
 *   have been rejected at load) never fires and never throws.
 */
export class SkillTriggerMatcher {
  constructor(private readonly patternCache: TriggerPatternCache = sharedTriggerPatternCache) {}

  /** Names of the matching candidates, in candidate order. */
  match(candidates: readonly TriggerCandidate[], input: string): string[] {
    const prepared = prepareTriggerInput(input);
    const tokens = new InputTokens(prepared.lowered);
    return candidates
      .filter((candidate) => candidate.triggers.some((trigger) => this.fires(trigger, prepared, tokens)))
      .map((candidate) => candidate.name);
  }

  // Keywords are re-tokenized for every message otherwise; bounded because keywords are tenant data.
  private readonly keywordTokenCache = new Map<string, readonly string[]>();

  private keywordTokens(keyword: string): readonly string[] {
    let tokens = this.keywordTokenCache.get(keyword);
    if (tokens === undefined) {
      if (this.keywordTokenCache.size >= MAX_CACHED_KEYWORDS) this.keywordTokenCache.clear();
      tokens = tokenize(keyword.toLowerCase());
      this.keywordTokenCache.set(keyword, tokens);
    }
    return tokens;
  }

  private fires(trigger: SkillTrigger, input: TriggerInput, tokens: InputTokens): boolean {
    if (trigger.type === "PATTERN") {
      try {
        return compileTriggerPattern(trigger.pattern, this.patternCache).find(input);
      } catch {
        return false;
      }
    }
    const total = trigger.keywords.length;
    if (total === 0) return false;
    let present = 0;
    for (const keyword of trigger.keywords) {
      if (tokens.containsSequence(this.keywordTokens(keyword))) present += 1;
      if (present * 2 >= total) return true;
    }
    return false;
  }
}

/** Tokens of spec §4a: runs of `[a-z0-9]`, at least 2 characters, from lowercased text. */
export function tokenize(lowered: string): string[] {
  return lowered.split(/[^a-z0-9]+/).filter((token) => token.length >= 2);
}

/** The input's tokens, built once per message; positions are indexed lazily for multi-word keywords. */
class InputTokens {
  private readonly list: string[];
  private readonly set: ReadonlySet<string>;
  private positions: Map<string, number[]> | undefined;

  constructor(lowered: string) {
    this.list = tokenize(lowered);
    this.set = new Set(this.list);
  }

  containsSequence(sequence: readonly string[]): boolean {
    const [first] = sequence;
    if (first === undefined || !sequence.every((token) => this.set.has(token))) return false;
    if (sequence.length === 1) return true;
    return (this.indexPositions().get(first) ?? []).some((start) =>
      sequence.every((token, offset) => this.list[start + offset] === token),
    );
  }

  private indexPositions(): Map<string, number[]> {
    if (this.positions === undefined) {
      const positions = new Map<string, number[]>();
      this.list.forEach((token, index) => {
        const at = positions.get(token);
        if (at === undefined) positions.set(token, [index]);
        else at.push(index);
      });
      this.positions = positions;
    }
    return this.positions;
  }
}

/** A skill as listed by the resolver, with the fields the trigger filter reads. */
export interface TriggerFilterable extends TriggerCandidate {
  readonly enabled: boolean;
}

/**
 * The candidate filter of spec §4a / §7b, applied before matching: enabled, has triggers, not
 * already active on the process, and inside the recipe whitelist (`undefined`/`null` = no
 * restriction, `[]` = lockdown).
 */
export function triggerCandidates<T extends TriggerFilterable>(
  skills: readonly T[],
  filter: { activeNames: Iterable<string>; allowedSkills?: readonly string[] | null | undefined },
): T[] {
  const active = new Set(filter.activeNames);
  const allowed = filter.allowedSkills == null ? undefined : new Set(filter.allowedSkills);
  return skills.filter(
    (skill) =>
      skill.enabled &&
      skill.triggers.length > 0 &&
      !active.has(skill.name) &&
      (allowed === undefined || allowed.has(skill.name)),
  );
}
