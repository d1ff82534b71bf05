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
  /** Open-addressing table over the vocabulary: slot → token id + 1 (0 = empty); see tokenIdAt. */
  readonly slots: Int32Array;
  readonly tokens: readonly string[];
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
export class KeywordTriggerIndex {
  private readonly vocabulary = new Map<string, number>();
  /** Vocabulary tokens by id, and how many single-token keywords each has (to pack them without a counting pass). */
  private readonly tokens: string[] = [];
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
    // Few keywords per trigger: a linear search beats a Map per trigger.
    const sequences: number[][] = [];
    const weights: number[] = [];
    for (let k = 0; k < keywords.length; k++) {
      const tokens = tokenize((keywords[k] as string).toLowerCase());
      if (tokens.length === 0) continue;
      const ids: number[] = [];
      for (let t = 0; t < tokens.length; t++) ids.push(this.tokenId(tokens[t] as string));
      let known = 0;
      while (known < sequences.length && !sameIds(sequences[known] as number[], ids)) known++;
      if (known === sequences.length) {
        sequences.push(ids);
        weights.push(1);
      } else weights[known] = (weights[known] as number) + 1;
    }
    for (let s = 0; s < sequences.length; s++) {
      const ids = sequences[s] as number[];
      const weight = weights[s] as number;
      const first = ids[0] as number;
      if (ids.length === 1) {
        this.singleTokens.push(first);
        this.singleTriggers.push(trigger);
        this.singleWeights.push(weight);
        this.singleCounts[first] = (this.singleCounts[first] as number) + 1;
        continue;
      }
      const second = ids[1] as number;
      let bySecond = this.pairs[first];
      if (bySecond === undefined) {
        bySecond = new Map();
        this.pairs[first] = bySecond;
      }
      const posting: SequencePosting = {
        trigger,
        weight,
        id: this.sequenceCount++,
        rest: ids.length > 2 ? Int32Array.from(ids.slice(2)) : undefined,
      };
      const list = bySecond.get(second);
      if (list === undefined) bySecond.set(second, [posting]);
      else list.push(posting);
    }
  }

  /** Marks as fired every open owner of a trigger that `lowered` satisfies. */
  match(lowered: string, marks: CandidateMarks): void {
    if (this.vocabulary.size === 0) return;
    const flat = this.flatten();
    // The same message again (the ledger's second pass): its token ids are still in `this.ids`.
    if (this.lastLowered !== lowered) {
      this.lastCount = this.messageIds(lowered, flat);
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
   * nothing). Tokens are looked up where they stand in `lowered`, so no substring is allocated.
   * Returns the token count.
   */
  private messageIds(lowered: string, flat: FlatPostings): number {
    // At most one token per two characters (a token has two or more, plus a separator).
    const bound = (lowered.length >> 1) + 2;
    if (this.ids.length < bound) this.ids = new Int32Array(Math.max(bound, this.ids.length * 2));
    const ids = this.ids;
    let n = 0;
    let start = -1;
    let hash = 0;
    for (let i = 0; i <= lowered.length; i++) {
      const code = i < lowered.length ? lowered.charCodeAt(i) : -1;
      if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) {
        if (start < 0) {
          start = i;
          hash = FNV_OFFSET;
        }
        hash = Math.imul(hash ^ code, FNV_PRIME);
      } else if (start >= 0) {
        if (i - start >= 2) ids[n++] = tokenIdAt(flat, lowered, start, i, hash);
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
      slots: vocabularySlots(tokens),
      tokens,
      seen: new Uint8Array(vocabularySize),
      counted: new Uint8Array(this.sequenceCount),
      counts: new Int32Array(this.owners.length),
    };
    return this.flat;
  }

  private tokenId(token: string): number {
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

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** Whether the message's ids (the first `n` of `ids`) continue with `rest` at `at`. */
function restAt(ids: Int32Array, n: number, at: number, rest: Int32Array): boolean {
  if (at + rest.length > n) return false;
  for (let k = 0; k < rest.length; k++) if (ids[at + k] !== rest[k]) return false;
  return true;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function tokenHash(token: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < token.length; i++) hash = Math.imul(hash ^ token.charCodeAt(i), FNV_PRIME);
  return hash;
}

/** Linear-probing table at most half full, so a miss ends after a probe or two. Vocabulary ids are positions in `tokens`. */
function vocabularySlots(tokens: readonly string[]): Int32Array {
  let size = 16;
  while (size < tokens.length * 2) size <<= 1;
  const slots = new Int32Array(size);
  for (let id = 0; id < tokens.length; id++) {
    let slot = tokenHash(tokens[id] as string) & (size - 1);
    while (slots[slot] !== 0) slot = (slot + 1) & (size - 1);
    slots[slot] = id + 1;
  }
  return slots;
}

/** The vocabulary id of `text[start, end)` (whose FNV-1a hash is `hash`), or -1. */
function tokenIdAt(flat: FlatPostings, text: string, start: number, end: number, hash: number): number {
  const { slots, tokens } = flat;
  const mask = slots.length - 1;
  const length = end - start;
  for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
    const entry = slots[slot] as number;
    if (entry === 0) return -1;
    const token = tokens[entry - 1] as string;
    if (token.length === length && sameAt(token, text, start)) return entry - 1;
  }
}

function sameAt(token: string, text: string, start: number): boolean {
  for (let k = 0; k < token.length; k++) if (token.charCodeAt(k) !== text.charCodeAt(start + k)) return false;
  return true;
}
