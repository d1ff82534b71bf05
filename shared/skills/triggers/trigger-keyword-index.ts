import { CANDIDATE_FIRED, CANDIDATE_OPEN, type CandidateMarks } from "./trigger-candidate-marks.js";

/** Tokens of spec §4a: runs of `[a-z0-9]`, at least 2 characters, from lowercased text. */
export function tokenize(lowered: string): string[] {
  // Same result as `lowered.split(/[^a-z0-9]+/).filter((t) => t.length >= 2)`, without the regex.
  const tokens: string[] = [];
  let start = -1;
  for (let i = 0; i <= lowered.length; i++) {
    const code = i < lowered.length ? lowered.charCodeAt(i) : -1;
    const inToken = (code >= 97 && code <= 122) || (code >= 48 && code <= 57);
    if (inToken) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (i - start >= 2) tokens.push(lowered.slice(start, i));
      start = -1;
    }
  }
  return tokens;
}

/** A multi-word keyword of one KEYWORDS trigger (or several identical ones: `weight`), filed under its first two tokens. */
interface SequencePosting {
  readonly trigger: number;
  /** How many of the trigger's keywords tokenize to this sequence (duplicates count each time). */
  readonly weight: number;
  /** Dense id, so that a sequence occurring several times in a message counts once. */
  readonly id: number;
  /** Token ids after the first two ("merge request review" → [review]), or undefined. */
  readonly rest: Int32Array | undefined;
}

interface FlatPostings {
  /** Postings of token id t are at [singleStart[t], singleStart[t + 1]). */
  readonly singleStart: Int32Array;
  readonly singleTrigger: Int32Array;
  readonly singleWeight: Int32Array;
  readonly owners: Int32Array;
  readonly totals: Int32Array;
  /** Per-message scratch, cleared at the start of each match (matching is synchronous and re-entrant-free). */
  readonly seen: Uint8Array;
  readonly counted: Uint8Array;
  readonly counts: Int32Array;
}

/**
 * KEYWORDS triggers (spec §4a) as an inverted index, so a message costs its tokens plus the
 * postings it hits, not triggers × keywords. Keyword tokens get numeric ids. A single-token keyword
 * is filed under its token and looked at once per distinct message token; a multi-word keyword
 * ("pull request") is filed under its first two tokens and looked at only where that pair occurs
 * in the message, checking any further tokens at that position.
 *
 * Semantics kept exactly: a trigger fires when at least half of its keywords occur (as whole
 * tokens, or as consecutive tokens for a multi-word keyword); duplicate keywords count once each;
 * a keyword without any token never occurs but counts towards the total; no keywords, no fire.
 */
/** A lowered keyword that `tokenize` returns whole, as its only token (most keywords): no scan, no slice. */
const WHOLE_TOKEN = /^[a-z0-9]{2,}$/;

export class KeywordTriggerIndex {
  /**
   * The vocabulary, token → id and tokens by id. A Map, not a table of our own hashes: on a cold
   * instance tens of thousands of keywords are added before any JIT has warmed up, and the engine
   * hashes a string and probes a Map natively while a hashing loop here runs interpreted.
   */
  private readonly vocabulary = new Map<string, number>();
  private readonly tokens: string[] = [];
  /** How many single-token keywords each token has (to pack them without a counting pass). */
  private readonly singleCounts: number[] = [];
  /**
   * Single-token keywords in the order added, as parallel lists (token id, trigger, weight), packed
   * by token on the first match: a cold instance adds tens of thousands, and an object and a list
   * per token cost more than the adding itself.
   */
  private readonly singleTokens: number[] = [];
  private readonly singleTriggers: number[] = [];
  private readonly singleWeights: number[] = [];
  /** First token id → second token id → multi-word keywords. */
  private readonly pairs: (Map<number, SequencePosting[]> | undefined)[] = [];
  private sequenceCount = 0;
  private readonly owners: number[] = [];
  private readonly totals: number[] = [];
  /**
   * Scratch of `add`, reused across triggers: the token ids of the trigger's distinct keyword
   * sequences back to back (sequence s at [sequenceStarts[s], sequenceStarts[s + 1])), and how
   * many keywords tokenize to each.
   */
  private readonly sequenceIds: number[] = [];
  private readonly sequenceStarts: number[] = [0];
  private readonly sequenceWeights: number[] = [];
  private flat: FlatPostings | undefined;
  /** Token ids of the current message, one past the last kept at -1; grows with the longest message seen. */
  private ids = new Int32Array(256);
  private lastLowered: string | undefined;
  private lastCount = 0;

  /** Adds one KEYWORDS trigger of the candidate at position `owner`. */
  add(owner: number, keywords: readonly string[]): void {
    this.flat = undefined;
    this.lastLowered = undefined;
    const trigger = this.owners.length;
    this.owners.push(owner);
    this.totals.push(keywords.length);
    const { sequenceIds: ids, sequenceStarts: starts, sequenceWeights: weights } = this;
    // Few keywords per trigger: a linear search for an earlier identical sequence beats a Map per trigger.
    let sequences = 0;
    let end = 0;
    for (let k = 0; k < keywords.length; k++) {
      // The tokens of `tokenize`, interned as they are scanned (no list per keyword).
      const lowered = (keywords[k] as string).toLowerCase();
      const begin = end;
      if (WHOLE_TOKEN.test(lowered)) ids[end++] = this.intern(lowered);
      else {
        let start = -1;
        for (let i = 0; i <= lowered.length; i++) {
          const code = i < lowered.length ? lowered.charCodeAt(i) : -1;
          if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) {
            if (start < 0) start = i;
          } else if (start >= 0) {
            if (i - start >= 2) ids[end++] = this.intern(lowered.slice(start, i));
            start = -1;
          }
        }
      }
      if (end === begin) continue;
      let known = 0;
      while (known < sequences && !sameRun(ids, starts[known] as number, starts[known + 1] as number, begin, end)) known++;
      if (known < sequences) {
        weights[known] = (weights[known] as number) + 1;
        end = begin;
      } else {
        weights[sequences] = 1;
        starts[++sequences] = end;
      }
    }
    for (let s = 0; s < sequences; s++) {
      const from = starts[s] as number;
      const to = starts[s + 1] as number;
      const weight = weights[s] as number;
      const first = ids[from] as number;
      if (to - from === 1) {
        this.singleTokens.push(first);
        this.singleTriggers.push(trigger);
        this.singleWeights.push(weight);
        this.singleCounts[first] = (this.singleCounts[first] as number) + 1;
        continue;
      }
      const second = ids[from + 1] as number;
      let bySecond = this.pairs[first];
      if (bySecond === undefined) {
        bySecond = new Map();
        this.pairs[first] = bySecond;
      }
      let rest: Int32Array | undefined;
      if (to - from > 2) {
        rest = new Int32Array(to - from - 2);
        for (let r = 0; r < rest.length; r++) rest[r] = ids[from + 2 + r] as number;
      }
      const posting: SequencePosting = { trigger, weight, id: this.sequenceCount++, rest };
      const list = bySecond.get(second);
      if (list === undefined) bySecond.set(second, [posting]);
      else list.push(posting);
    }
  }

  /** Marks as fired every open owner of a trigger that `lowered` satisfies. */
  match(lowered: string, marks: CandidateMarks): void {
    if (this.tokens.length === 0) return;
    const flat = this.flatten();
    // The same message again (the ledger's second pass): its token ids are still in `this.ids`.
    if (this.lastLowered !== lowered) {
      this.lastCount = this.messageIds(lowered);
      this.lastLowered = lowered;
    }
    const n = this.lastCount;
    const ids = this.ids;
    const { singleStart, singleTrigger, singleWeight, owners, totals, seen, counted, counts } = flat;
    seen.fill(0);
    counted.fill(0);
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const id = ids[i] as number;
      if (id < 0) continue;
      if (seen[id] === 0) {
        seen[id] = 1;
        const end = singleStart[id + 1] as number;
        for (let k = singleStart[id] as number; k < end; k++) {
          const trigger = singleTrigger[k] as number;
          const owner = owners[trigger] as number;
          if (marks[owner] !== CANDIDATE_OPEN) continue;
          const present = (counts[trigger] as number) + (singleWeight[k] as number);
          counts[trigger] = present;
          if (present * 2 >= (totals[trigger] as number)) marks[owner] = CANDIDATE_FIRED;
        }
      }
      const sequences = this.pairs[id]?.get(ids[i + 1] as number);
      if (sequences === undefined) continue;
      for (const posting of sequences) {
        const owner = owners[posting.trigger] as number;
        if (counted[posting.id] === 1 || marks[owner] !== CANDIDATE_OPEN) continue;
        if (posting.rest !== undefined && !restAt(ids, n, i + 2, posting.rest)) continue;
        counted[posting.id] = 1;
        const present = (counts[posting.trigger] as number) + posting.weight;
        counts[posting.trigger] = present;
        if (present * 2 >= (totals[posting.trigger] as number)) marks[owner] = CANDIDATE_FIRED;
      }
    }
  }

  /**
   * The message's tokens (as `tokenize` splits them) as vocabulary ids into `this.ids`, -1 for a
   * token no keyword has, with one -1 past the end (so a pair lookup at the last token finds
   * nothing). Returns the token count.
   */
  private messageIds(lowered: string): number {
    // At most one token per two characters (a token has two or more, plus a separator).
    const bound = (lowered.length >> 1) + 2;
    if (this.ids.length < bound) this.ids = new Int32Array(Math.max(bound, this.ids.length * 2));
    const { ids, vocabulary } = this;
    let n = 0;
    let start = -1;
    for (let i = 0; i <= lowered.length; i++) {
      const code = i < lowered.length ? lowered.charCodeAt(i) : -1;
      if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) {
        if (start < 0) start = i;
      } else if (start >= 0) {
        if (i - start >= 2) ids[n++] = vocabulary.get(lowered.slice(start, i)) ?? -1;
        start = -1;
      }
    }
    ids[n] = -1;
    return n;
  }

  /** The single-token postings packed by token id (rebuilt after `add`), in the order added, for a tight matching loop. */
  private flatten(): FlatPostings {
    if (this.flat !== undefined) return this.flat;
    const { tokens, singleCounts, singleTokens, singleTriggers, singleWeights } = this;
    const vocabularySize = tokens.length;
    const singleStart = new Int32Array(vocabularySize + 1);
    for (let id = 0; id < vocabularySize; id++) singleStart[id + 1] = (singleStart[id] as number) + (singleCounts[id] as number);
    const next = singleStart.slice(0, vocabularySize);
    const singleTrigger = new Int32Array(singleTokens.length);
    const singleWeight = new Int32Array(singleTokens.length);
    for (let p = 0; p < singleTokens.length; p++) {
      const at = next[singleTokens[p] as number] as number;
      next[singleTokens[p] as number] = at + 1;
      singleTrigger[at] = singleTriggers[p] as number;
      singleWeight[at] = singleWeights[p] as number;
    }
    this.flat = {
      singleStart,
      singleTrigger,
      singleWeight,
      owners: Int32Array.from(this.owners),
      totals: Int32Array.from(this.totals),
      seen: new Uint8Array(vocabularySize),
      counted: new Uint8Array(this.sequenceCount),
      counts: new Int32Array(this.owners.length),
    };
    return this.flat;
  }

  private intern(token: string): number {
    let id = this.vocabulary.get(token);
    if (id === undefined) {
      id = this.tokens.length;
      this.vocabulary.set(token, id);
      this.tokens.push(token);
      this.singleCounts.push(0);
      this.pairs.push(undefined);
    }
    return id;
  }
}

/** Whether ids[a, aEnd) and ids[b, bEnd) are the same ids. */
function sameRun(ids: readonly number[], a: number, aEnd: number, b: number, bEnd: number): boolean {
  if (aEnd - a !== bEnd - b) return false;
  for (let k = 0; k < aEnd - a; k++) if (ids[a + k] !== ids[b + k]) return false;
  return true;
}

/** Whether the message's ids (the first `n` of `ids`) continue with `rest` at `at`. */
function restAt(ids: Int32Array, n: number, at: number, rest: Int32Array): boolean {
  if (at + rest.length > n) return false;
  for (let k = 0; k < rest.length; k++) if (ids[at + k] !== rest[k]) return false;
  return true;
}
