/**
 * Typo tolerance for the relevance index (issue 26): a query word the index does not know
 * (`abuselpdb`, `slak`, `hubspott`) is matched to the known words at a small edit distance
 * (Damerau–Levenshtein: one edit from 4 characters on, two from 8), found through the character
 * trigrams they share instead of a pass over the vocabulary.
 *
 * Only words of the fields a product is named in (name, tags, description, when_to_use, headings
 * and tool names) take part: running body text would triple the vocabulary for little gain.
 */
export const MIN_FUZZY_CHARS = 4;
/** Known words a typo may stand for, closest first; more would dilute the query. */
const MAX_FUZZY_MATCHES = 3;
/** Words up to this long are also looked up by first letter and length (trigrams are too few to find their typos). */
const MAX_HEAD_CHARS = 6;
/** Trigram lists longer than this are too common to narrow anything down ("ion", "ing"). */
const MAX_TRIGRAM_POSTINGS = 4_000;

export const maxEditsFor = (length: number): number => (length >= 8 ? 2 : length >= MIN_FUZZY_CHARS ? 1 : 0);

/** The trigrams of `^term$`, each once, as look-up keys (trigramKey), in order of appearance. */
function trigramsOf(term: string): Set<TrigramKey> {
  const padded = `^${term}$`;
  const out = new Set<TrigramKey>();
  for (let i = 0; i + 3 <= padded.length; i++) out.add(trigramKey(padded, i));
  return out;
}

type TrigramKey = number | string;

/** The trigram at `i` as a Map key: a number for an ASCII one (no string to cut and hash), else its text. */
function trigramKey(padded: string, i: number): TrigramKey {
  const a = padded.charCodeAt(i);
  const b = padded.charCodeAt(i + 1);
  const c = padded.charCodeAt(i + 2);
  return (a | b | c) < 128 ? (a << 14) | (b << 7) | c : padded.slice(i, i + 3);
}

/** Words of one first code unit and length: the key of byHead. */
const headKey = (word: string, length: number): number => word.charCodeAt(0) * 16 + length;

export class FuzzyTerms {
  private readonly terms: string[] = [];
  /** Built on the first look-up: a catalog whose queries never need a typo look-up never pays for it. */
  private lookup: TrigramLookup | undefined;

  add(term: string): void {
    if (term.length < MIN_FUZZY_CHARS) return;
    this.terms.push(term);
    this.lookup = undefined;
  }

  /** Known words within the edit distance `word` allows, closest first, then in code-point order. */
  near(word: string): { term: string; edits: number }[] {
    const maxEdits = maxEditsFor(word.length);
    if (maxEdits === 0) return [];
    const grams = trigramsOf(word);
    // An edit destroys at most 3 trigrams, a swap of neighbours 4: fewer shared ones cannot be close enough.
    const needed = Math.max(1, grams.size - 4 * maxEdits);
    const { byTrigram, byHead } = (this.lookup ??= trigramLookup(this.terms));
    const shared = new Map<number, number>();
    for (const gram of grams) {
      const list = byTrigram.get(gram);
      if (list === undefined || list.length > MAX_TRIGRAM_POSTINGS) continue;
      for (const id of list) shared.set(id, (shared.get(id) ?? 0) + 1);
    }
    const candidates = new Set<number>();
    for (const [id, count] of shared) if (count >= needed) candidates.add(id);
    if (word.length <= MAX_HEAD_CHARS) {
      for (let length = word.length - 1; length <= word.length + 1; length++)
        for (const id of byHead.get(headKey(word, length)) ?? []) candidates.add(id);
    }
    const found: { term: string; edits: number }[] = [];
    for (const id of candidates) {
      const term = this.terms[id]!;
      if (Math.abs(term.length - word.length) > maxEdits) continue;
      const edits = boundedEditDistance(word, term, maxEdits);
      if (edits <= maxEdits) found.push({ term, edits });
    }
    found.sort((a, b) => a.edits - b.edits || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
    return found.slice(0, MAX_FUZZY_MATCHES);
  }
}

interface TrigramLookup {
  /** Term ids by each trigram of theirs, ascending. */
  readonly byTrigram: Map<TrigramKey, number[]>;
  /** Short words by first letter and length: a swap in a 4-letter word ("jria") shares no trigram with it. */
  readonly byHead: Map<number, number[]>;
}

function trigramLookup(terms: readonly string[]): TrigramLookup {
  const byTrigram = new Map<TrigramKey, number[]>();
  const byHead = new Map<number, number[]>();
  for (let id = 0; id < terms.length; id++) {
    const term = terms[id]!;
    if (term.length <= MAX_HEAD_CHARS) {
      const key = headKey(term, term.length);
      const list = byHead.get(key);
      if (list === undefined) byHead.set(key, [id]);
      else list.push(id);
    }
    const padded = `^${term}$`;
    for (let i = 0; i + 3 <= padded.length; i++) {
      const gram = trigramKey(padded, i);
      const list = byTrigram.get(gram);
      if (list === undefined) byTrigram.set(gram, [id]);
      // Ids come in ascending order: a trigram the term repeats ends its list already.
      else if (list[list.length - 1] !== id) list.push(id);
    }
  }
  return { byTrigram, byHead };
}

/** Optimal string alignment distance (a swap of two neighbours is one edit), or max+1 once it exceeds max. */
export function boundedEditDistance(a: string, b: string, max: number): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  let prevPrev = new Array<number>(m + 1).fill(0);
  let prev = Array.from({ length: m + 1 }, (_, j) => j);
  let row = new Array<number>(m + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    row[0] = i;
    let rowMin = row[0];
    for (let j = 1; j <= m; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let value = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, prevPrev[j - 2]! + 1);
      row[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    [prevPrev, prev, row] = [prev, row, prevPrev];
  }
  return prev[m]!;
}
