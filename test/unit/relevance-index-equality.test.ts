import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RelevanceIndex, type IndexableSkill } from "../../shared/skills/relevance/relevance-index.js";
import type { FuzzyTerms } from "../../shared/skills/relevance/fuzzy-terms.js";
import { boundedEditDistance, maxEditsFor, MIN_FUZZY_CHARS } from "../../shared/skills/relevance/fuzzy-terms.js";
import { STOP_WORDS, termsOf, type TermOptions } from "../../shared/skills/relevance/relevance-terms.js";
import { parseSkillDocument } from "../../shared/skills/skill-document-parser.js";
import { searchTextOf } from "../../shared/skills/skill-search-text.js";
import { fixtureSkills } from "../fixtures/routing/generate.js";
import { prng } from "../support/seeded-random.js";
import { withStoredTerms } from "../support/stored-field-terms.js";
import { storedFieldTermsOf } from "../../shared/skills/relevance/stored-field-terms.js";

/**
 * Issue 27: the relevance index is built with less work on a cold instance (words analyzed once,
 * native splitting, flat postings, the typo index built on first use). Its answers must not
 * move: the algorithm as it was is kept here verbatim as the oracle, and the new build must give
 * the same terms, the same term ids in the same order, the same postings, weights and idf bit for
 * bit, and the same scores for every query, over real-shaped skills (the routing fixture) and
 * generated ones that reach every corner of the tokenizer.
 */

// ---- The oracle: relevance-terms.ts, fuzzy-terms.ts and RelevanceIndex.build before issue 27 ----

const WORD = /[\p{L}\p{N}]+/gu;
const CAMEL_PARTS = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\p{L}+|\d+/gu;
const MARKS = /\p{M}+/gu;
const MAX_WORD_CHARS = 40;
const NON_ASCII = /[^\t\n\r\u0020-\u007e]/;
const DIGIT = /\d/;

function referenceTermsOf(text: string, options: TermOptions = {}): string[] {
  const max = options.maxTerms ?? Number.POSITIVE_INFINITY;
  const out: string[] = [];
  const ascii = !NON_ASCII.test(text);
  const folded = ascii ? text : text.normalize("NFKD").replace(MARKS, "");
  const compounds = options.compounds;
  let previous: string | undefined;
  let previousEnd = -1;
  let previousStop = false;
  const word = (start: number, end: number): void => {
    const raw = folded.slice(start, end);
    if (raw.length > MAX_WORD_CHARS) {
      previous = undefined;
      return;
    }
    const lower = raw.toLowerCase();
    const stop = STOP_WORDS.has(lower);
    if (raw.length === 1 && raw !== lower && !stop) out.push(lower);
    else referencePush(out, lower, stop);
    if (raw !== lower || DIGIT.test(raw)) {
      const parts = raw.match(CAMEL_PARTS);
      if (parts !== null && parts.length > 1)
        for (const part of parts) if (part.length >= 2) referencePush(out, part.toLowerCase(), STOP_WORDS.has(part.toLowerCase()));
    }
    if (compounds !== undefined && previous !== undefined && start - previousEnd <= 1) {
      const joined = start === previousEnd || folded.charCodeAt(previousEnd) !== 32;
      if (joined || (options.joinedOnly !== true && !stop && !previousStop)) referencePush(compounds, previous + lower, false);
    }
    previous = lower;
    previousEnd = end;
    previousStop = stop;
  };
  if (ascii) {
    let start = -1;
    for (let i = 0; i <= folded.length && out.length < max; i++) {
      const c = i < folded.length ? folded.charCodeAt(i) : 32;
      const alnum = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
      if (alnum) {
        if (start === -1) start = i;
      } else if (start !== -1) {
        word(start, i);
        start = -1;
      }
    }
  } else {
    for (const match of folded.matchAll(WORD)) {
      if (out.length >= max) break;
      word(match.index, match.index + match[0].length);
    }
  }
  return out.length > max ? out.slice(0, max) : out;
}

function referencePush(out: string[], lower: string, stop: boolean): void {
  if (stop) return;
  const term = referenceStem(lower);
  if (term.length >= 2 || DIGIT.test(term)) out.push(term);
}

function referenceStem(word: string): string {
  let w = word;
  if (w.length <= 3 || DIGIT.test(w)) return w;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) w = w.slice(0, -1);
  if (w.endsWith("ing") && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith("ed") && w.length > 4) w = w.slice(0, -2);
  if (w.endsWith("e") && w.length > 4) w = w.slice(0, -1);
  return w;
}

function referenceTrigramsOf(term: string): string[] {
  const padded = `^${term}$`;
  const out: string[] = [];
  for (let i = 0; i + 3 <= padded.length; i++) out.push(padded.slice(i, i + 3));
  return out;
}

class ReferenceFuzzyTerms {
  private readonly byTrigram = new Map<string, number[]>();
  private readonly byHead = new Map<string, number[]>();
  readonly terms: string[] = [];

  add(term: string): void {
    if (term.length < MIN_FUZZY_CHARS) return;
    const id = this.terms.length;
    this.terms.push(term);
    if (term.length <= 6) {
      const key = `${term[0]}${term.length}`;
      const list = this.byHead.get(key);
      if (list === undefined) this.byHead.set(key, [id]);
      else list.push(id);
    }
    for (const gram of new Set(referenceTrigramsOf(term))) {
      let list = this.byTrigram.get(gram);
      if (list === undefined) {
        list = [];
        this.byTrigram.set(gram, list);
      }
      list.push(id);
    }
  }

  near(word: string): { term: string; edits: number }[] {
    const maxEdits = maxEditsFor(word.length);
    if (maxEdits === 0) return [];
    const grams = [...new Set(referenceTrigramsOf(word))];
    const needed = Math.max(1, grams.length - 4 * maxEdits);
    const shared = new Map<number, number>();
    for (const gram of grams) {
      const list = this.byTrigram.get(gram);
      if (list === undefined || list.length > 4_000) continue;
      for (const id of list) shared.set(id, (shared.get(id) ?? 0) + 1);
    }
    const candidates = new Set<number>();
    for (const [id, count] of shared) if (count >= needed) candidates.add(id);
    if (word.length <= 6) {
      for (let length = word.length - 1; length <= word.length + 1; length++)
        for (const id of this.byHead.get(`${word[0]}${length}`) ?? []) candidates.add(id);
    }
    const found: { term: string; edits: number }[] = [];
    for (const id of candidates) {
      const term = this.terms[id]!;
      if (Math.abs(term.length - word.length) > maxEdits) continue;
      const edits = boundedEditDistance(word, term, maxEdits);
      if (edits <= maxEdits) found.push({ term, edits });
    }
    found.sort((a, b) => a.edits - b.edits || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
    return found.slice(0, 3);
  }
}

interface FieldSpec {
  weight: number;
  b: number;
  compounds: "all" | "joined" | "none";
  fuzzy: boolean;
}

const FIELDS: readonly FieldSpec[] = [
  { weight: 6, b: 0.3, compounds: "all", fuzzy: true },
  { weight: 3, b: 0.3, compounds: "all", fuzzy: true },
  { weight: 2, b: 0.75, compounds: "joined", fuzzy: true },
  { weight: 1.5, b: 0.75, compounds: "joined", fuzzy: true },
  { weight: 1.5, b: 0.5, compounds: "joined", fuzzy: true },
  { weight: 0.4, b: 0.75, compounds: "none", fuzzy: false },
];

function referenceFieldTerms(text: string, spec: FieldSpec): string[] {
  if (spec.compounds === "none") return referenceTermsOf(text);
  const compounds: string[] = [];
  const terms = referenceTermsOf(text, { compounds, joinedOnly: spec.compounds === "joined" });
  for (const c of compounds) terms.push(c);
  return terms;
}

const cap = (text: string | undefined): string => (text === undefined ? "" : text.length > 4_096 ? text.slice(0, 4_096) : text);

function referenceFieldTexts(skill: IndexableSkill): string[] {
  const search = skill.searchText ?? "";
  const second = search.indexOf("\n", search.indexOf("\n") + 1);
  const keywords = second === -1 ? search : search.slice(0, second);
  const prose = second === -1 ? "" : search.slice(second + 1);
  return [skill.name, cap((skill.tags ?? []).join(" , ")), cap(skill.description), cap(skill.whenToUse), cap(keywords), cap(prose)];
}

function referenceAverageLengths(skills: readonly IndexableSkill[]): number[] {
  const step = Math.max(1, Math.floor(skills.length / 256));
  const sums = FIELDS.map(() => 0);
  let sampled = 0;
  for (let doc = 0; doc < skills.length; doc += step) {
    const fields = referenceFieldTexts(skills[doc]!);
    for (let f = 0; f < FIELDS.length; f++) sums[f]! += referenceFieldTerms(fields[f]!, FIELDS[f]!).length;
    sampled++;
  }
  return sums.map((sum) => Math.max(1, sum / Math.max(1, sampled)));
}

interface IndexParts {
  size: number;
  termIds: Map<string, number>;
  offsets: Int32Array;
  docs: Int32Array;
  weights: Float32Array;
  idf: Float64Array;
  fuzzy: ReferenceFuzzyTerms;
}

function referenceBuild(skills: readonly IndexableSkill[]): IndexParts {
  const termIds = new Map<string, number>();
  const fuzzy = new ReferenceFuzzyTerms();
  const inFuzzy = new Set<number>();
  const averages = referenceAverageLengths(skills);
  const postingDocs: number[][] = [];
  const postingWeights: number[][] = [];
  const weighted = new Map<number, number>();
  const counts = new Map<string, number>();
  for (let doc = 0; doc < skills.length; doc++) {
    const fields = referenceFieldTexts(skills[doc]!);
    weighted.clear();
    for (let f = 0; f < FIELDS.length; f++) {
      const spec = FIELDS[f]!;
      const terms = referenceFieldTerms(fields[f]!, spec);
      if (terms.length === 0) continue;
      counts.clear();
      for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
      const norm = 1 - spec.b + (spec.b * terms.length) / averages[f]!;
      for (const [term, tf] of counts) {
        let id = termIds.get(term);
        if (id === undefined) {
          id = termIds.size;
          termIds.set(term, id);
          postingDocs.push([]);
          postingWeights.push([]);
        }
        if (spec.fuzzy && !inFuzzy.has(id)) {
          inFuzzy.add(id);
          fuzzy.add(term);
        }
        weighted.set(id, (weighted.get(id) ?? 0) + (spec.weight * tf) / norm);
      }
    }
    for (const [id, w] of weighted) {
      postingDocs[id]!.push(doc);
      postingWeights[id]!.push(w);
    }
  }
  const offsets = new Int32Array(termIds.size + 1);
  let total = 0;
  for (let t = 0; t < termIds.size; t++) {
    offsets[t] = total;
    total += postingDocs[t]!.length;
  }
  offsets[termIds.size] = total;
  const docs = new Int32Array(total);
  const weights = new Float32Array(total);
  const idf = new Float64Array(termIds.size);
  for (let t = 0; t < termIds.size; t++) {
    docs.set(postingDocs[t]!, offsets[t]!);
    weights.set(postingWeights[t]!, offsets[t]!);
    const df = postingDocs[t]!.length;
    idf[t] = Math.log(1 + (skills.length - df + 0.5) / (df + 0.5));
  }
  return { size: skills.length, termIds, offsets, docs, weights, idf, fuzzy };
}

// ---- Fixtures ----

/** The routing fixture's real-shaped skills, parsed by the service's parser (so each has its searchText). */
function routingSkills(): IndexableSkill[] {
  return [...fixtureSkills()].flatMap(([name, text]) => {
    const parsed = parseSkillDocument(name, text, `_vance/skills/${name}/SKILL.md`);
    return parsed.definition ? [{ ...parsed.definition, name }] : [];
  });
}

/** Words that reach every branch of the tokenizer: camel case, digits, accents, scripts, stop words, joiners, long words. */
const WORDS = [
  "SeatGeek",
  "seat-geek",
  "seat_geek",
  "Seat Geek",
  "AbuseIPDB",
  "s3Bucket",
  "EC2",
  "oauth2",
  "2FA",
  "v2.3.1",
  "1042",
  "iPhone",
  "macOS",
  "XMLHttpRequest",
  "X",
  "R",
  "a",
  "I",
  "C++",
  "C#",
  "Node.js",
  "to-do",
  "e-mail",
  "sign-in",
  "the",
  "and",
  "please",
  "Thanks!",
  "helps",
  "tickets",
  "creating",
  "created",
  "queries",
  "classes",
  "status",
  "analysis",
  "café",
  "Übersetzung",
  "naïve",
  "Ångström",
  "ſtatus",
  "ﬁle",
  "日本語",
  "翻訳する",
  "Ελληνικά",
  "русский",
  "🚀",
  "·",
  "…",
  "\u00a0",
  "’",
  "—",
  "™",
  "①",
  "x".repeat(41),
  "Supercalifragilisticexpialidocious",
  "deploy",
  "staging",
  "invoice",
  "refund",
  "HubSpot",
  "GitHub",
  "PagerDuty",
  "Jira",
  "pull request",
  "merge request",
  "calendar",
  "spreadsheet",
  "PDFs",
];
const SEPARATORS = [" ", " ", " ", "-", "_", ", ", ". ", "\n", "/", "", "  ", " · ", "…", "\u00a0", "\t"];

function sentence(random: () => number, words: number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  let text = "";
  for (let i = 0; i < words; i++) text += pick(WORDS) + pick(SEPARATORS);
  return text;
}

function generatedSkills(n: number): IndexableSkill[] {
  const random = prng(27);
  const names = ["seat-geek", "seatGeekSync", "AbuseIPDB-check", "s3-bucket-v2", "ec2Instance", "café-menü", "日本語-翻訳", "x", "to-do"];
  return Array.from({ length: n }, (_, i) => {
    const body =
      i % 4 === 0
        ? ""
        : `# ${sentence(random, 3)}\n## ${sentence(random, 2)}\n\nCall \`SEATGEEK_SEARCH_${i}\` or \`${names[i % names.length]}\`.\n\n` +
          "```\nIGNORED_IN_FENCE\n```\n" +
          `${sentence(random, 10 + (i % 50))}\n`;
    return {
      name: `${names[i % names.length]}-${i % 7 === 0 ? "" : i}`,
      description: i % 97 === 0 ? sentence(random, 1_500) : sentence(random, 3 + (i % 40)),
      ...(i % 3 === 0 ? { whenToUse: sentence(random, 5 + (i % 9)) } : {}),
      ...(i % 2 === 0 ? { tags: Array.from({ length: i % 6 }, () => sentence(random, 1 + (i % 2)).trim()) } : {}),
      ...(body !== "" ? { searchText: searchTextOf(body, i % 5 === 0 ? ["tool_x", "SLACK_SEND_MESSAGE"] : []) } : {}),
    };
  });
}

const FIXTURE = join(import.meta.dirname, "..", "fixtures", "routing");
const REQUESTS = [...readFileSync(join(FIXTURE, "requests.yaml"), "utf8").matchAll(/^- message: (".*")$/gm)].map(
  (m) => JSON.parse(m[1]!) as string,
);

function queries(): string[] {
  const random = prng(2027);
  return [
    ...REQUESTS,
    "",
    "hi thanks, how are you?",
    "slak the team",
    "send it from my gmial",
    "discrod announcement",
    "seatgeek events this weekend",
    "Seat Geek events",
    "check AbuseIPDB for 10.0.0.1",
    "abuselpdb",
    "übersetzung café",
    "日本語",
    // Long: read as head and tail; many distinct terms: the rarest 48 are kept, ties by term id.
    `${"x ".repeat(6_000)} slack message ${"y ".repeat(3_000)}`,
    REQUESTS.join(" "),
    ...Array.from({ length: 120 }, (_, i) => sentence(random, 1 + (i % 60))),
  ];
}

// ---- Comparisons ----

const newIndexParts = (index: RelevanceIndex): Omit<IndexParts, "fuzzy"> & { fuzzy: FuzzyTerms } =>
  index as unknown as IndexParts & { fuzzy: FuzzyTerms };

/** A RelevanceIndex over the oracle's parts (its typo look-ups the oracle's), to score queries the old way. */
function referenceIndex(parts: IndexParts): RelevanceIndex {
  const Index = RelevanceIndex as unknown as new (parts: IndexParts) => RelevanceIndex;
  return new Index(parts);
}

function expectSameIndex(skills: readonly IndexableSkill[], label: string): RelevanceIndex {
  const built = RelevanceIndex.build(skills);
  const expected = referenceBuild(skills);
  const actual = newIndexParts(built);
  expect([...actual.termIds], label).toEqual([...expected.termIds]);
  expect(actual.size, label).toBe(expected.size);
  // Bit for bit: a weight or idf one ulp off would reorder ties.
  expect(Buffer.from(actual.offsets.buffer).equals(Buffer.from(expected.offsets.buffer)), `${label}: offsets`).toBe(true);
  expect(Buffer.from(actual.docs.buffer).equals(Buffer.from(expected.docs.buffer)), `${label}: docs`).toBe(true);
  expect(Buffer.from(actual.weights.buffer).equals(Buffer.from(expected.weights.buffer)), `${label}: weights`).toBe(true);
  expect(Buffer.from(actual.idf.buffer).equals(Buffer.from(expected.idf.buffer)), `${label}: idf`).toBe(true);
  const reference = referenceIndex(expected);
  for (const query of queries()) {
    const got = built.scoreAll(query);
    const want = reference.scoreAll(query);
    expect(got === undefined, `${label}: ${query.slice(0, 60)}`).toBe(want === undefined);
    if (got === undefined || want === undefined) continue;
    expect(got.touched, `${label}: ${query.slice(0, 60)}`).toEqual(want.touched);
    expect(Buffer.from(got.scores.buffer).equals(Buffer.from(want.scores.buffer)), `${label}: ${query.slice(0, 60)}`).toBe(true);
  }
  return built;
}

const OPTIONS: readonly ((compounds: string[]) => TermOptions)[] = [
  () => ({}),
  (compounds) => ({ compounds }),
  (compounds) => ({ compounds, joinedOnly: true }),
  (compounds) => ({ compounds, maxTerms: 7 }),
  () => ({ maxTerms: 1 }),
  // As the build reads skill texts: new words kept in the process-wide memo (first time) and read from it (second).
  (compounds) => ({ compounds, remember: true }),
  (compounds) => ({ compounds, joinedOnly: true, remember: true }),
  () => ({ remember: true }),
];

function expectSameTerms(texts: readonly string[]): void {
  for (const text of texts) {
    for (const options of OPTIONS) {
      const compounds: string[] = [];
      const referenceCompounds: string[] = [];
      const got = termsOf(text, options(compounds));
      const want = referenceTermsOf(text, options(referenceCompounds));
      expect({ terms: got, compounds }, text.slice(0, 80)).toEqual({ terms: want, compounds: referenceCompounds });
    }
  }
}

describe("the relevance index built the issue-27 way", () => {
  const routing = routingSkills();
  const generated = generatedSkills(700);
  const fieldTexts = (skills: readonly IndexableSkill[]): string[] => skills.flatMap((skill) => referenceFieldTexts(skill));

  it("tokenizes every field and query exactly as before, with every option", () => {
    expectSameTerms([...fieldTexts(routing), ...fieldTexts(generated), ...queries()]);
  });

  it("builds the same index (term ids, postings, weights, idf, typo look-ups) and scores every query the same, at every sample step", () => {
    const all = [...routing, ...generated];
    for (const n of [0, 1, 2, 255, 256, 257, 511, 513, 700, all.length]) expectSameIndex(all.slice(0, n), `first ${n}`);
    expectSameIndex(generated, "generated only");
    // Real-shaped skills repeated under numbered names, as the relevance bench lists 10 000.
    expectSameIndex(
      Array.from({ length: 3_000 }, (_, i) =>
        i < routing.length ? routing[i]! : { ...routing[i % routing.length]!, name: `${routing[i % routing.length]!.name}-${i}` },
      ),
      "3 000 real-shaped",
    );
  });

  it("builds the same index from the terms level snapshots stored, over a listing that mixes levels and skills without them", () => {
    const all = [...routing, ...generated];
    // Three levels interleaved as a merged listing interleaves them by name; every seventh skill
    // comes from elsewhere (a pinned version, a run-time write): tokenized as before.
    const levelOf = (i: number): number => (i % 7 === 6 ? -1 : (i * 31) % 3);
    const mixed = withStoredTerms(all, levelOf).map((skill, i) => (levelOf(i) === -1 ? { ...skill } : skill));
    expect(mixed.filter((skill) => storedFieldTermsOf(skill) !== undefined)).toHaveLength(all.length - Math.floor(all.length / 7));
    for (const n of [1, 257, 513, mixed.length]) expectSameIndex(mixed.slice(0, n), `stored terms, first ${n}`);
    expectSameIndex(
      withStoredTerms(generated, () => 0),
      "stored terms, one level",
    );
  });

  it("finds the same typo neighbours, built on first use and again after more words come in", () => {
    const skills = [...routing, ...generated];
    const built = RelevanceIndex.build(skills);
    const expected = referenceBuild(skills);
    const fuzzy = newIndexParts(built).fuzzy;
    const typos = ["slak", "gmial", "discrod", "hubspott", "abuselpdb", "jria", "trelo", "calender", "spredsheet", "notoin", "x", "abc"];
    // Non-ASCII trigrams take another kind of key.
    typos.push("ubersetzng", "日本語翻", "翻訳すろ", "ελληνικα", "руский", "angstrm", "seatgeeck");
    expect(typos.map((word) => fuzzy.near(word))).toEqual(typos.map((word) => expected.fuzzy.near(word)));
    fuzzy.add("slackbot");
    expected.fuzzy.add("slackbot");
    expect(fuzzy.near("slakbot")).toEqual(expected.fuzzy.near("slakbot"));
  });

  it("tokenizes the same once its per-process memo of words is full", () => {
    // More distinct words than the memo keeps: the words after it are analyzed each time.
    const many = Array.from({ length: 70_000 }, (_, i) => `Wörd${i.toString(36)}Zz`).join(" ");
    const compounds: string[] = [];
    const referenceCompounds: string[] = [];
    expect(termsOf(many, { compounds, remember: true })).toEqual(referenceTermsOf(many, { compounds: referenceCompounds }));
    expect(compounds).toEqual(referenceCompounds);
    expectSameTerms([
      ...fieldTexts(generated.slice(0, 100)),
      ...queries().slice(0, 50),
      "brandNewCamelWords fresh-compounds Ünïcödé-wörds",
    ]);
  });
});
