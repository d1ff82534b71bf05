import { FuzzyTerms, MIN_FUZZY_CHARS } from "./fuzzy-terms.js";
import { termsOf } from "./relevance-terms.js";
import { FIELD_COMPOUNDS, fieldTerms, fieldTexts, type IndexableSkill } from "./skill-field-terms.js";
import { decodeFieldTerms, storedFieldTermsOf, type LevelFieldTerms } from "./stored-field-terms.js";

export type { IndexableSkill } from "./skill-field-terms.js";

interface FieldSpec {
  weight: number;
  /** BM25 length normalization of this field: 0 none, 1 full. */
  b: number;
  fuzzy: boolean;
}

/** In field order (skill-field-terms.ts, which says each one's compounds): name, tags, description, when_to_use, searchText keywords (headings, tools), searchText prose. */
const FIELDS: readonly FieldSpec[] = [
  { weight: 6, b: 0.3, fuzzy: true },
  { weight: 3, b: 0.3, fuzzy: true },
  { weight: 2, b: 0.75, fuzzy: true },
  { weight: 1.5, b: 0.75, fuzzy: true },
  { weight: 1.5, b: 0.5, fuzzy: true },
  { weight: 0.4, b: 0.75, fuzzy: false },
];

const K1 = 1.2;
/** A query text longer than this is read as its first and last halves of this (the ask is usually at one end). */
export const MAX_QUERY_CHARS = 8_192;
/** Distinct query terms scored at most; the rarest (most telling) are kept. */
const MAX_QUERY_TERMS = 48;
/** Query words looked up as typos at most, in order of appearance. */
const MAX_FUZZY_WORDS = 8;
/** A word matched as a typo counts this much of the word it stands for. */
const FUZZY_DISCOUNT = 0.7;

export interface ScoredSkill {
  /** Position of the skill in the indexed listing. */
  index: number;
  score: number;
}

/**
 * Field-weighted BM25 (BM25F) over a listing's skills (issue 26; docs/decisions.md "Issue 26").
 *
 * Fields and weights: the name split into words (and its adjacent-word compounds) weighs most, a
 * product is usually named there; tags; description; when_to_use; the `searchText` headings and
 * tool names line(s); then its prose line, weighing least. BM25F folds each field's length-
 * normalized term frequency into one weighted frequency per (term, skill) before saturation;
 * since skills do not change while indexed, that number is computed once at build time, and a
 * query is a walk over the postings of its terms: one Float32 and one Int32 per posting.
 *
 * Queries: terms as relevance-terms.ts makes them; a query word the index does not know is
 * matched to known words one or two edits away (fuzzy-terms.ts) at a discount. The work is
 * bounded whatever the message: MAX_QUERY_CHARS of text (head and tail of a longer one),
 * MAX_QUERY_TERMS distinct terms (the rarest kept), MAX_FUZZY_WORDS typo look-ups.
 *
 * Deterministic: the same skills in the same order and the same query give the same scores.
 * The index needs no body: `searchText` is derived at parse time (skill-search-text.ts). A skill
 * whose level snapshot stored its field terms (stored-field-terms.ts) is read from them, not
 * tokenized: the same terms in the same order, so the same index bit for bit.
 */
export class RelevanceIndex {
  readonly size: number;
  private readonly termIds: Map<string, number>;
  /** CSR postings: the skills of term t are docs[offsets[t] .. offsets[t+1]), with their weighted frequency. */
  private readonly offsets: Int32Array;
  private readonly docs: Int32Array;
  private readonly weights: Float32Array;
  private readonly idf: Float64Array;
  private readonly fuzzy: FuzzyTerms;

  private constructor(parts: {
    size: number;
    termIds: Map<string, number>;
    offsets: Int32Array;
    docs: Int32Array;
    weights: Float32Array;
    idf: Float64Array;
    fuzzy: FuzzyTerms;
  }) {
    this.size = parts.size;
    this.termIds = parts.termIds;
    this.offsets = parts.offsets;
    this.docs = parts.docs;
    this.weights = parts.weights;
    this.idf = parts.idf;
    this.fuzzy = parts.fuzzy;
  }

  static build(skills: readonly IndexableSkill[]): RelevanceIndex {
    const termIds = new Map<string, number>();
    const fuzzy = new FuzzyTerms();
    const { averages, step, sample } = sampleFieldTerms(skills);
    // One pass: each skill's terms as term ids, field after field (from the terms its level
    // snapshot stored, else tokenized), then each field's terms counted, length-normalized and
    // weighted, summed per term into the skill's one weighted frequency, appended to the postings
    // (term, skill, weight) in skill order. Scratch is indexed by term id, so a field costs no Map
    // of its own; plain arrays, not typed ones: growing a typed array is a branch rarely taken,
    // and each first time through it threw away the optimized code of a cold build.
    const termTexts: string[] = [];
    const tf: number[] = [];
    const docWeight: number[] = [];
    const inFuzzy: boolean[] = [];
    const fieldIds: number[] = [];
    const docIds: number[] = [];
    const df: number[] = [];
    const postingTerms: number[] = [];
    const postingDocs: number[] = [];
    const postingWeights: number[] = [];
    // The skill's term ids, field after field; field f ends at ends[f].
    const ids: number[] = [];
    const ends: number[] = FIELDS.map(() => 0);
    const levelIds: number[] = [];
    // Per level of stored terms: its dictionary ids as term ids (-1: not met yet), so a term is
    // looked up by its text once per level, not once per occurrence. Ids are still given in order
    // of first occurrence over the listing, as tokenizing gives them.
    const translations = new Map<LevelFieldTerms, Int32Array>();
    let lastLevel: LevelFieldTerms | undefined;
    let lastTranslation: Int32Array | undefined;
    const idOf = (term: string): number => {
      let id = termIds.get(term);
      if (id === undefined) {
        id = termIds.size;
        termIds.set(term, id);
        termTexts.push(term);
        df.push(0);
        tf.push(0);
        docWeight.push(0);
        inFuzzy.push(false);
      }
      return id;
    };
    for (let doc = 0; doc < skills.length; doc++) {
      const skill = skills[doc]!;
      const sampled = doc % step === 0 ? sample[doc / step] : undefined;
      if (sampled !== undefined) sample[doc / step] = undefined;
      ids.length = 0;
      const stored = sampled === undefined ? storedFieldTermsOf(skill) : undefined;
      const dictionary = stored?.level.terms();
      if (dictionary !== undefined && decodeFieldTerms(stored!.code, dictionary.length, levelIds, ends)) {
        if (stored!.level !== lastLevel) {
          lastLevel = stored!.level;
          lastTranslation = translations.get(lastLevel);
          if (lastTranslation === undefined) translations.set(lastLevel, (lastTranslation = new Int32Array(dictionary.length).fill(-1)));
        }
        const translation = lastTranslation!;
        for (let k = 0; k < levelIds.length; k++) {
          const levelId = levelIds[k]!;
          let id = translation[levelId]!;
          if (id === -1) translation[levelId] = id = idOf(dictionary[levelId]!);
          ids.push(id);
        }
      } else {
        const texts = sampled === undefined ? fieldTexts(skill) : undefined;
        for (let f = 0; f < FIELDS.length; f++) {
          const terms = sampled !== undefined ? sampled[f]! : fieldTerms(texts![f]!, FIELD_COMPOUNDS[f]!);
          for (let k = 0; k < terms.length; k++) ids.push(idOf(terms[k]!));
          ends[f] = ids.length;
        }
      }
      let start = 0;
      for (let f = 0; f < FIELDS.length; f++) {
        const end = ends[f]!;
        if (end === start) continue;
        const spec = FIELDS[f]!;
        for (let k = start; k < end; k++) {
          const id = ids[k]!;
          if (tf[id] === 0) fieldIds.push(id);
          tf[id]! += 1;
        }
        const norm = 1 - spec.b + (spec.b * (end - start)) / averages[f]!;
        for (let k = 0; k < fieldIds.length; k++) {
          const id = fieldIds[k]!;
          // The typo vocabulary holds the words of the fields a product is named in, each once.
          if (spec.fuzzy && !inFuzzy[id]) {
            inFuzzy[id] = true;
            fuzzy.add(termTexts[id]!);
          }
          // Every field's contribution is above 0, so 0 means "not yet in this skill".
          if (docWeight[id] === 0) docIds.push(id);
          docWeight[id]! += (spec.weight * tf[id]!) / norm;
          tf[id] = 0;
        }
        fieldIds.length = 0;
        start = end;
      }
      for (let k = 0; k < docIds.length; k++) {
        const id = docIds[k]!;
        df[id]! += 1;
        postingTerms.push(id);
        postingDocs.push(doc);
        postingWeights.push(docWeight[id]!);
        docWeight[id] = 0;
      }
      docIds.length = 0;
    }
    // What follows the loop is in functions of their own: the loop's optimized code would be
    // thrown away on reaching code never run before, and a second long loop here compiled again.
    const { offsets, docs, weights } = packPostings(df, postingTerms, postingDocs, postingWeights);
    return new RelevanceIndex({ size: skills.length, termIds, offsets, docs, weights, idf: idfOf(df, skills.length), fuzzy });
  }

  /**
   * Skills with a score above 0 for `query`, in index order (callers rank). `accept` filters by
   * listing position (the catalog's candidates). No signal (stop words only, nothing known) → [].
   */
  score(query: string, accept?: (index: number) => boolean): ScoredSkill[] {
    const all = this.scoreAll(query);
    if (all === undefined) return [];
    const out: ScoredSkill[] = [];
    for (const doc of all.touched)
      if (all.scores[doc]! > 0 && (accept === undefined || accept(doc))) out.push({ index: doc, score: all.scores[doc]! });
    return out;
  }

  /** Every skill's score (0: not matched) and the skills matched, in index order; undefined without signal. */
  scoreAll(query: string): { scores: Float64Array; touched: number[] } | undefined {
    const weighted = this.queryTerms(query);
    if (weighted.length === 0) return undefined;
    const scores = new Float64Array(this.size);
    const touched: number[] = [];
    for (const { id, weight } of weighted) {
      const idf = this.idf[id]! * weight;
      const end = this.offsets[id + 1]!;
      for (let p = this.offsets[id]!; p < end; p++) {
        const doc = this.docs[p]!;
        const tf = this.weights[p]!;
        if (scores[doc] === 0) touched.push(doc);
        scores[doc]! += (idf * tf * (K1 + 1)) / (tf + K1);
      }
    }
    touched.sort((a, b) => a - b);
    return { scores, touched };
  }

  /** The query's known terms with their weight (1 + ln of repeats; typos discounted), rarest first, bounded. */
  private queryTerms(raw: string): { id: number; weight: number }[] {
    const text = raw.length > MAX_QUERY_CHARS ? `${raw.slice(0, MAX_QUERY_CHARS / 2)}\n${raw.slice(-MAX_QUERY_CHARS / 2)}` : raw;
    const compounds: string[] = [];
    const words = termsOf(text, { compounds });
    const counts = new Map<number, number>();
    const unknown: string[] = [];
    const add = (id: number, weight: number): void => {
      counts.set(id, (counts.get(id) ?? 0) + weight);
    };
    for (const word of words) {
      const id = this.termIds.get(word);
      if (id !== undefined) add(id, 1);
      else if (word.length >= MIN_FUZZY_CHARS && unknown.length < MAX_FUZZY_WORDS && !unknown.includes(word)) unknown.push(word);
    }
    for (const compound of compounds) {
      const id = this.termIds.get(compound);
      if (id !== undefined) add(id, 1);
    }
    for (const word of unknown) {
      for (const near of this.fuzzy.near(word)) {
        const id = this.termIds.get(near.term);
        if (id !== undefined && !counts.has(id)) add(id, FUZZY_DISCOUNT / near.edits);
      }
    }
    const terms = [...counts].map(([id, count]) => ({ id, weight: count >= 1 ? 1 + Math.log(count) : count }));
    if (terms.length <= MAX_QUERY_TERMS) return terms;
    // Keep the rarest; ties by term id (the order terms entered the index): deterministic.
    terms.sort((a, b) => this.idf[b.id]! - this.idf[a.id]! || a.id - b.id);
    return terms.slice(0, MAX_QUERY_TERMS);
  }
}

/** Skills whose field lengths give the average lengths BM25 normalizes by: a deterministic sample, so the build reads each skill once. */
const LENGTH_SAMPLE = 256;

/**
 * The average terms per field (at least 1) over the length sample (the first skill and every
 * `step`-th after it, about LENGTH_SAMPLE skills), and the field terms of the sampled skills it
 * tokenized, kept so the build does not tokenize them again (undefined for one read from stored terms).
 */
function sampleFieldTerms(skills: readonly IndexableSkill[]): {
  averages: number[];
  step: number;
  sample: (string[][] | undefined)[];
} {
  const step = Math.max(1, Math.floor(skills.length / LENGTH_SAMPLE));
  const sums = FIELDS.map(() => 0);
  const sample: (string[][] | undefined)[] = [];
  const levelIds: number[] = [];
  const ends: number[] = FIELDS.map(() => 0);
  for (let doc = 0; doc < skills.length; doc += step) {
    const skill = skills[doc]!;
    const stored = storedFieldTermsOf(skill);
    const dictionary = stored?.level.terms();
    if (dictionary !== undefined && decodeFieldTerms(stored!.code, dictionary.length, levelIds, ends)) {
      for (let f = 0; f < FIELDS.length; f++) sums[f]! += ends[f]! - (f === 0 ? 0 : ends[f - 1]!);
      sample.push(undefined);
      continue;
    }
    const texts = fieldTexts(skill);
    const terms = FIELDS.map((_, f) => fieldTerms(texts[f]!, FIELD_COMPOUNDS[f]!));
    for (let f = 0; f < FIELDS.length; f++) sums[f]! += terms[f]!.length;
    sample.push(terms);
  }
  const sampled = sample.length;
  return { averages: sums.map((sum) => Math.max(1, sum / Math.max(1, sampled))), step, sample };
}

/** Postings appended as (term, skill, weight) in skill order, packed by term (CSR), each term's skills still in order; `df`: postings per term. */
function packPostings(
  df: readonly number[],
  terms: readonly number[],
  docsInOrder: readonly number[],
  weightsInOrder: readonly number[],
): { offsets: Int32Array; docs: Int32Array; weights: Float32Array } {
  const termCount = df.length;
  const offsets = new Int32Array(termCount + 1);
  for (let t = 0; t < termCount; t++) offsets[t + 1] = offsets[t]! + df[t]!;
  const next = offsets.slice(0, termCount);
  const docs = new Int32Array(terms.length);
  const weights = new Float32Array(terms.length);
  for (let p = 0; p < terms.length; p++) {
    const at = next[terms[p]!]!++;
    docs[at] = docsInOrder[p]!;
    weights[at] = weightsInOrder[p]!;
  }
  return { offsets, docs, weights };
}

function idfOf(df: readonly number[], size: number): Float64Array {
  const idf = new Float64Array(df.length);
  for (let t = 0; t < df.length; t++) idf[t] = Math.log(1 + (size - df[t]! + 0.5) / (df[t]! + 0.5));
  return idf;
}
