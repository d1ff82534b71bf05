import type { SkillTrigger } from "../skill-frontmatter.js";
import { capTriggerInput, type TriggerCandidate } from "./skill-trigger-index.js";
import {
  compileTriggerPattern,
  prepareTriggerInput,
  sharedTriggerPatternCache,
  type TriggerInput,
  type TriggerPatternCache,
} from "./skill-trigger-pattern.js";
import { tokenize } from "./trigger-keyword-index.js";
import type { TriggerTimeBudget } from "./trigger-time-budget.js";

/** API.md "Explainable activation" `trigger`: which of a skill's triggers matched, and how. */
export interface TriggerMatch {
  type: SkillTrigger["type"];
  /** Position of the trigger in the skill's `triggers` list (as authored). */
  index: number;
  /** KEYWORDS: the trigger's keywords that occur in the message (at most MAX_MATCH_KEYWORDS). */
  keywords?: string[];
  /** PATTERN: the text the regex found (at most MAX_MATCH_TEXT_CHARS characters). */
  match?: string;
}

/** A match text longer than this is cut (a pattern like `deploy.*` could otherwise echo the whole message). */
export const MAX_MATCH_TEXT_CHARS = 200;
/** A KEYWORDS trigger may hold 100 keywords; the ledger names at most this many of those hit. */
export const MAX_MATCH_KEYWORDS = 20;
/**
 * Regex spans computed per message. Finding where a pattern matched takes a second regex run
 * (positions cost more than the DFA's yes/no); beyond this many, a PATTERN match is reported
 * without its `match` text. Keyword details cost no regex and are always given.
 */
export const MAX_MATCH_SPANS = 20;

/**
 * Explains matches of one message after the trigger index decided them: only skills that
 * matched are looked at, so a turn pays for details in proportion to its matches, never to the
 * listing. The answers follow the matcher's rules (skill-trigger-matcher.ts): the same capped,
 * lowercased input, keywords as whole tokens (consecutive for a multi-word keyword), at least
 * half of them present; keyword triggers are tried before patterns, as the index does.
 */
export class TriggerMatchExplainer {
  private readonly capped: string;
  private readonly prepared: TriggerInput;
  private tokens: string[] | undefined;
  private tokenSet: Set<string> | undefined;
  private spans = 0;

  constructor(
    message: string,
    private readonly budget?: TriggerTimeBudget,
    private readonly cache: TriggerPatternCache = sharedTriggerPatternCache,
  ) {
    this.capped = capTriggerInput(message);
    this.prepared = prepareTriggerInput(this.capped);
  }

  /**
   * The trigger of `skill` that fires on the message, or undefined when none does (a pattern past
   * MAX_MATCH_SPANS or the time budget is reported by type and index without running: the index
   * already said it fired, so when no keyword trigger explains the match, the first pattern does).
   * `patterns: false`: the skill's PATTERN triggers were dropped by the per-level caps
   * (trigger-caps.ts) and took no part in the match; only its keywords can explain it.
   */
  explain(skill: TriggerCandidate, patterns = true): TriggerMatch | undefined {
    const triggers = skill.triggers;
    for (let index = 0; index < triggers.length; index++) {
      const trigger = triggers[index] as SkillTrigger;
      if (trigger.type !== "KEYWORDS") continue;
      const hit = this.keywordsHit(trigger.keywords);
      if (hit.count * 2 >= trigger.keywords.length && hit.count > 0) return { type: "KEYWORDS", index, keywords: hit.names };
    }
    if (!patterns) return undefined;
    let unrun: number | undefined;
    for (let index = 0; index < triggers.length; index++) {
      const trigger = triggers[index] as SkillTrigger;
      if (trigger.type !== "PATTERN") continue;
      if (this.spans >= MAX_MATCH_SPANS || this.budget?.spent() === true) {
        unrun ??= index;
        continue;
      }
      const span = this.span(trigger.pattern);
      if (span !== undefined) return { type: "PATTERN", index, match: span };
    }
    return unrun === undefined ? undefined : { type: "PATTERN", index: unrun };
  }

  /** Which keywords occur; duplicates count once each, as in KeywordTriggerIndex. */
  private keywordsHit(keywords: readonly string[]): { count: number; names: string[] } {
    const names: string[] = [];
    let count = 0;
    for (const keyword of keywords) {
      if (!this.occurs(keyword)) continue;
      count += 1;
      if (names.length < MAX_MATCH_KEYWORDS && !names.includes(keyword)) names.push(keyword);
    }
    return { count, names };
  }

  private occurs(keyword: string): boolean {
    const wanted = tokenize(keyword.toLowerCase());
    if (wanted.length === 0) return false;
    this.tokens ??= tokenize(this.prepared.lowered);
    this.tokenSet ??= new Set(this.tokens);
    if (wanted.length === 1) return this.tokenSet.has(wanted[0] as string);
    if (!wanted.every((token) => (this.tokenSet as Set<string>).has(token))) return false;
    const tokens = this.tokens;
    for (let at = 0; at + wanted.length <= tokens.length; at++) {
      if (wanted.every((token, k) => tokens[at + k] === token)) return true;
    }
    return false;
  }

  private span(pattern: string): string | undefined {
    let found: { start: number; end: number } | undefined;
    try {
      const compiled = compileTriggerPattern(pattern, this.cache);
      if (!compiled.find(this.prepared)) return undefined;
      this.spans += 1;
      found = compiled.span(this.prepared);
    } catch {
      return undefined; // rejected at load; never fires
    }
    if (found === undefined) return undefined;
    // Lowercasing keeps positions for nearly all text; where it did not, the lowered text is what matched.
    const text = this.prepared.lowered.length === this.capped.length ? this.capped : this.prepared.lowered;
    return capText(text.slice(found.start, found.end));
  }
}

/** At most MAX_MATCH_TEXT_CHARS code units, never half a surrogate pair. */
function capText(text: string): string {
  if (text.length <= MAX_MATCH_TEXT_CHARS) return text;
  let end = MAX_MATCH_TEXT_CHARS;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end);
}
