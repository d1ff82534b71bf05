import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DocumentCatalogue } from "../../shared/catalogue/document-catalogue.js";
import { InMemoryCatalogueVersions } from "../../shared/catalogue/in-memory-catalogue-versions.js";
import { InMemoryLevelSnapshotStore } from "../../shared/catalogue/in-memory-level-snapshot-store.js";
import { decodeLevelSnapshot, encodeLevelSnapshot } from "../../shared/catalogue/level-snapshot-codec.js";
import type { SkillScopeContext } from "../../shared/documents/cascade-scope.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import type { FuzzyTerms } from "../../shared/skills/relevance/fuzzy-terms.js";
import { RelevanceIndex, type IndexableSkill } from "../../shared/skills/relevance/relevance-index.js";
import { FIELD_TERMS_VERSION, skillFieldTerms } from "../../shared/skills/relevance/skill-field-terms.js";
import {
  attachFieldTerms,
  decodeFieldTerms,
  encodeLevelFieldTerms,
  LevelFieldTerms,
  storedFieldTermsOf,
} from "../../shared/skills/relevance/stored-field-terms.js";
import type { ListedSkill } from "../../shared/skills/resolved-skill.js";
import { SkillLoader, skillDocumentPreparer } from "../../shared/skills/skill-loader.js";
import { prng } from "../support/seeded-random.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";
import { EmptyLayer } from "../support/steering-harness.js";
import { storeLevelTerms } from "../support/stored-field-terms.js";

/**
 * Issue 27: a level snapshot stores each skill's field terms (a level dictionary and term ids per
 * field), and a cold instance's index build reads them instead of tokenizing. The index must be
 * the same bit for bit whether a skill's terms were stored or tokenized — over listings that mix
 * levels (each its own dictionary), names an inner level shadows, and skills without stored terms —
 * and terms it cannot trust (another analyzer version, a wrong shape) are tokenized again.
 */

// ---- Random skills and queries ----

const FIXED_WORDS = [
  "deploy",
  "Staging",
  "SeatGeek",
  "seat-geek",
  "HubSpot",
  "pull request",
  "invoice",
  "refunds",
  "café",
  "Übersetzung",
  "日本語",
  "to-do",
  "e-mail",
  "s3Bucket",
  "AbuseIPDB",
  "X",
  "the",
  "and",
  "please",
  "tickets",
  "creating",
  "queries",
  "v2",
  "1042",
  "k8s",
  "GitHub",
  "PagerDuty",
  "calendar",
  "spreadsheet",
  "PDFs",
  "naïve",
  "Ελληνικά",
  "x".repeat(41),
];
const SEPARATORS = [" ", " ", " ", "-", "_", ", ", ". ", "\n", "/", "", " · ", "\u00a0"];

/** Words made up from a small alphabet: level vocabularies past one and two code characters (57, 1 938 ids). */
function madeUpWord(random: () => number): string {
  const letters = "abcdefgiklmnoprstuz";
  let word = "";
  const length = 3 + Math.floor(random() * 6);
  for (let i = 0; i < length; i++) word += letters[Math.floor(random() * letters.length)];
  if (random() >= 0.15) return word;
  // Camel case: `SeaTon` gives seaton, sea, ton.
  return word.slice(0, 1).toUpperCase() + word.slice(1, 3) + word.slice(3, 4).toUpperCase() + word.slice(4);
}

function text(random: () => number, words: number): string {
  let out = "";
  for (let i = 0; i < words; i++) {
    const word = random() < 0.4 ? FIXED_WORDS[Math.floor(random() * FIXED_WORDS.length)]! : madeUpWord(random);
    out += word + SEPARATORS[Math.floor(random() * SEPARATORS.length)]!;
  }
  return out;
}

function randomSkill(random: () => number, name: string): IndexableSkill {
  const lines = Math.floor(random() * 4);
  const searchText = [text(random, 3), text(random, 2), text(random, 5 + Math.floor(random() * 60))].slice(0, lines).join("\n");
  return {
    name,
    description: text(random, 1 + Math.floor(random() * 40)),
    ...(random() < 0.4 ? { whenToUse: text(random, 2 + Math.floor(random() * 10)) } : {}),
    ...(random() < 0.5 ? { tags: Array.from({ length: Math.floor(random() * 5) }, () => text(random, 1).trim()) } : {}),
    ...(lines > 0 ? { searchText } : {}),
  };
}

function randomQueries(random: () => number): string[] {
  const typo = (word: string): string => {
    const at = 1 + Math.floor(random() * (word.length - 2));
    return word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2);
  };
  return [
    "",
    "hi thanks",
    "seatgeek tickets",
    "deplyo to stagng",
    "hubspott",
    // More distinct terms than a query keeps: the rarest win, ties by term id.
    text(random, 400),
    ...Array.from({ length: 60 }, () => text(random, 1 + Math.floor(random() * 12))),
    ...Array.from({ length: 20 }, () => typo(madeUpWord(random) + madeUpWord(random))),
  ];
}

/**
 * Levels innermost first, names shared between them, each level's terms stored as its snapshot
 * stores them over ALL of its skills; the merged listing takes each name from the innermost level
 * holding it (the others are shadowed), in name order, as a scan does. `unstored` levels keep no
 * terms (an old snapshot, a run-time write).
 */
function mergedListing(seed: number, sizes: readonly number[], unstored: ReadonlySet<number>): IndexableSkill[] {
  const random = prng(seed);
  const pool = Array.from({ length: Math.max(...sizes) * 2 }, (_, i) => `${madeUpWord(random)}-${i}`);
  const levels = sizes.map((size) => {
    const names = [...new Set(Array.from({ length: size }, () => pool[Math.floor(random() * pool.length)]!))];
    return names.map((name) => randomSkill(random, name));
  });
  levels.forEach((level, i) => {
    if (!unstored.has(i)) storeLevelTerms(level);
  });
  const byName = new Map<string, IndexableSkill>();
  for (const level of levels) for (const skill of level) if (!byName.has(skill.name)) byName.set(skill.name, skill);
  return [...byName.keys()].sort().map((name) => byName.get(name)!);
}

// ---- Comparison ----

interface Parts {
  size: number;
  termIds: Map<string, number>;
  offsets: Int32Array;
  docs: Int32Array;
  weights: Float32Array;
  idf: Float64Array;
  fuzzy: FuzzyTerms;
}

const partsOf = (index: RelevanceIndex): Parts => index as unknown as Parts;
const bytes = (array: Int32Array | Float32Array | Float64Array): Buffer => Buffer.from(array.buffer, array.byteOffset, array.byteLength);
const TYPOS = ["seatgeeck", "hubspott", "stagng", "invoise", "spredsheet", "calender", "ubersetzng", "pagerduti"];

/** The index over `listing` (stored terms where it has them) is the index over copies that have none, bit for bit. */
function expectSameAsTokenized(listing: readonly IndexableSkill[], queries: readonly string[], label: string): void {
  const fromStored = RelevanceIndex.build(listing);
  const tokenized = RelevanceIndex.build(listing.map((skill) => ({ ...skill })));
  const a = partsOf(fromStored);
  const b = partsOf(tokenized);
  expect([...a.termIds], label).toEqual([...b.termIds]);
  expect(bytes(a.offsets).equals(bytes(b.offsets)), `${label}: offsets`).toBe(true);
  expect(bytes(a.docs).equals(bytes(b.docs)), `${label}: docs`).toBe(true);
  expect(bytes(a.weights).equals(bytes(b.weights)), `${label}: weights`).toBe(true);
  expect(bytes(a.idf).equals(bytes(b.idf)), `${label}: idf`).toBe(true);
  expect(
    TYPOS.map((word) => a.fuzzy.near(word)),
    label,
  ).toEqual(TYPOS.map((word) => b.fuzzy.near(word)));
  for (const query of queries) {
    const got = fromStored.scoreAll(query);
    const want = tokenized.scoreAll(query);
    expect(got === undefined, `${label}: ${query.slice(0, 60)}`).toBe(want === undefined);
    if (got === undefined || want === undefined) continue;
    expect(got.touched, `${label}: ${query.slice(0, 60)}`).toEqual(want.touched);
    expect(bytes(got.scores).equals(bytes(want.scores)), `${label}: ${query.slice(0, 60)}`).toBe(true);
  }
}

/** Whether the build reads `skill` from stored terms (they are attached and readable). */
function readsStored(skill: IndexableSkill): boolean {
  const stored = storedFieldTermsOf(skill);
  const dictionary = stored?.level.terms();
  return dictionary !== undefined && decodeFieldTerms(stored!.code, dictionary.length, [], []);
}

describe("relevance terms stored in level snapshots", () => {
  it("reads every skill's terms back as tokenizing gives them, ids of one, two and three characters", () => {
    // Prepare: a level whose dictionary runs past 1 938 terms.
    const random = prng(11);
    const level = Array.from({ length: 700 }, (_, i) => randomSkill(random, `${madeUpWord(random)}-${i}`));

    // Act
    const encoded = encodeLevelFieldTerms(level)!;
    const dictionary = new LevelFieldTerms(encoded.dictionary).terms()!;

    // Assess
    expect(dictionary.length).toBeGreaterThan(1_938);
    expect(new Set(dictionary).size).toBe(dictionary.length);
    level.forEach((skill, i) => {
      const ids: number[] = [];
      const ends: number[] = [];
      expect(decodeFieldTerms(encoded.codes[i]!, dictionary.length, ids, ends)).toBe(true);
      const fields = ends.map((end, f) => ids.slice(f === 0 ? 0 : ends[f - 1], end).map((id) => dictionary[id]));
      expect(fields).toEqual(skillFieldTerms(skill));
    });
    expect(JSON.stringify(encoded)).toBe(JSON.stringify(JSON.parse(JSON.stringify(encoded))));
    expect(/[^\x20-\x7e]|["\\]/.test(encoded.codes.join(""))).toBe(false);
  });

  it("builds the same index with and without stored terms over random skills from mixed levels, at every sample step", () => {
    for (const [seed, sizes, unstored] of [
      [1, [40, 120, 300], []],
      [2, [300, 900, 500, 60], [2]],
      [3, [2, 1_100], []],
      [4, [257], []],
      [5, [90, 700], [0]],
    ] as const) {
      // Prepare
      const listing = mergedListing(seed, sizes, new Set(unstored));
      const queries = randomQueries(prng(seed * 7));

      // Assess
      expect(listing.some(readsStored), `seed ${seed}`).toBe(true);
      expectSameAsTokenized(listing, queries, `seed ${seed}`);
      // Skills from elsewhere (a pinned version) between stored ones.
      const withCopies = listing.map((skill, i) => (i % 5 === 0 ? { ...skill, description: `${skill.description} pinned` } : skill));
      expectSameAsTokenized(withCopies, queries.slice(0, 20), `seed ${seed}, copies`);
    }
  });

  it("tokenizes a skill whose stored terms it cannot read, the others still read from theirs", () => {
    // Prepare
    const random = prng(5);
    const level = Array.from({ length: 60 }, (_, i) => randomSkill(random, `s-${i}`));
    storeLevelTerms(level);
    const good = storedFieldTermsOf(level[0]!)!;
    const broken = (code: string, dictionary?: string): void => {
      const skill = level[Math.floor(random() * level.length)]!;
      attachFieldTerms(skill, { level: dictionary === undefined ? good.level : new LevelFieldTerms(dictionary), code });
    };
    const { code } = storedFieldTermsOf(level[1]!)!;
    broken(code.replace(/ /g, "")); // not six fields
    broken(`${code} `); // seven fields
    broken(`${code}]`); // an id left unfinished
    broken(`${code.slice(0, 1)}"${code.slice(1)}`); // a character outside the code
    broken(`${code}\\`);
    broken(`~~~~#${code}`); // an id past the dictionary
    broken(`~~~~~#${code}`); // an id of more digits than any
    broken("     ", "one  two"); // an empty term in the dictionary
    broken("~# # # # # #", "alpha beta"); // a dictionary too short for its ids
    broken("", ""); // no field at all

    // Assess
    expect(level.filter((skill) => !readsStored(skill)).length).toBeGreaterThan(0);
    expect(level.filter(readsStored).length).toBeGreaterThan(40);
    expectSameAsTokenized(level, randomQueries(prng(55)), "broken codes");
  });

  it("pins the terms of a corpus to FIELD_TERMS_VERSION: a change of what a skill's terms are must move the version", () => {
    // If this fails after a change to relevance-terms.ts or skill-field-terms.ts, increase
    // FIELD_TERMS_VERSION (snapshots of the old version are then tokenized again) and update both values here.
    const random = prng(2027);
    const corpus = Array.from({ length: 400 }, (_, i) => randomSkill(random, i % 3 === 0 ? `${text(random, 2)}-${i}` : `skill-${i}`));
    const digest = createHash("sha256")
      .update(JSON.stringify(corpus.map(skillFieldTerms)))
      .digest("hex");
    expect({ version: FIELD_TERMS_VERSION, digest }).toEqual({
      version: 1,
      digest: "c9b4c1aa9c2f1fdbeb02769a4dce0f81e6a6e8873c2dcd85505c47106f3a144c",
    });
  });
});

// ---- Through the catalogue: written with the snapshot, read by a cold instance ----

const TENANT = "acme";
const SCOPE: SkillScopeContext = { tenantId: TENANT, userId: "bob", projectId: "web" };

async function seededLevels(): Promise<{ store: InMemoryDocumentStore; versions: InMemoryCatalogueVersions }> {
  const store = new InMemoryDocumentStore();
  const random = prng(99);
  const levels = { _user_bob: 15, web: 80, _tenant: 40 };
  for (const [project, count] of Object.entries(levels)) {
    for (let i = 0; i < count; i++) {
      // Names shared between levels: the inner one shadows the outer.
      const name = `skill-${Math.floor(random() * 100)}`;
      const body = `# ${text(random, 3)}\n\nUse \`${madeUpWord(random)}_tool\`. ${text(random, 30)}\n`;
      const extra = random() < 0.5 ? `tags: ${JSON.stringify([text(random, 1).trim(), madeUpWord(random)])}` : "";
      await store.put(TENANT, project, skillPath(name), skillMd({ description: text(random, 12), extra, body }));
    }
  }
  const versions = new InMemoryCatalogueVersions();
  for (const project of Object.keys(levels)) await versions.bump(TENANT, project);
  return { store, versions };
}

function coldLoader(store: InMemoryDocumentStore, versions: InMemoryCatalogueVersions, snapshots: InMemoryLevelSnapshotStore): SkillLoader {
  const bundled = new EmptyLayer();
  return new SkillLoader({
    store,
    bundled,
    catalogue: new DocumentCatalogue({ store, bundled, versions, preparer: skillDocumentPreparer, snapshots }),
  });
}

/** Every stored snapshot rewritten with `extras` changed by `edit`. */
function tamper(snapshots: InMemoryLevelSnapshotStore, edit: (extras: Record<string, unknown>) => unknown): void {
  for (const [key, bytes] of snapshots.objects) {
    const content = decodeLevelSnapshot(bytes);
    snapshots.objects.set(key, encodeLevelSnapshot({ ...content, extras: edit({ ...(content.extras as Record<string, unknown>) }) }));
  }
}

describe("relevance terms through level snapshots", () => {
  it("a cold instance's listing reads its terms from the snapshots, with the scores tokenizing gives", async () => {
    // Prepare
    const { store, versions } = await seededLevels();
    const snapshots = new InMemoryLevelSnapshotStore();
    await coldLoader(store, versions, snapshots).listAvailable(SCOPE);

    // Act
    const skills: ListedSkill[] = await coldLoader(store, versions, snapshots).listAvailable(SCOPE);

    // Assess
    expect(snapshots.objects.size).toBe(3);
    expect(new Set(skills.map((skill) => skill.source)).size).toBe(3);
    expect(skills.every(readsStored)).toBe(true);
    expect(new Set(skills.map((skill) => storedFieldTermsOf(skill)!.level)).size).toBe(3);
    expectSameAsTokenized(skills, randomQueries(prng(3)), "cold listing");
  });

  it.each([
    [
      "another analyzer version",
      (extras: Record<string, unknown>) => ({
        ...extras,
        relevanceTerms: { ...(extras.relevanceTerms as object), version: FIELD_TERMS_VERSION + 1 },
      }),
    ],
    ["no relevance terms (an older snapshot)", (extras: Record<string, unknown>) => ({ patternLiterals: extras.patternLiterals })],
    [
      "a dictionary of another type",
      (extras: Record<string, unknown>) => ({ ...extras, relevanceTerms: { ...(extras.relevanceTerms as object), dictionary: 7 } }),
    ],
    [
      "documents not a list",
      (extras: Record<string, unknown>) => ({ ...extras, relevanceTerms: { ...(extras.relevanceTerms as object), docs: "x" } }),
    ],
    [
      "entries of the wrong types or indexes",
      (extras: Record<string, unknown>) => {
        const terms = extras.relevanceTerms as { docs: unknown[] };
        const docs = terms.docs.map((value, i) => (i % 6 === 0 ? 1e9 : i % 6 === 2 ? null : i % 6 === 5 ? { code: value } : value));
        return { ...extras, relevanceTerms: { ...terms, docs } };
      },
    ],
    [
      "codes that are no codes",
      (extras: Record<string, unknown>) => {
        const terms = extras.relevanceTerms as { docs: unknown[] };
        const docs = terms.docs.map((value, i) => (i % 2 === 1 && i % 3 !== 0 ? `${String(value)}\u00e9 ~` : value));
        return { ...extras, relevanceTerms: { ...terms, docs } };
      },
    ],
    [
      "a dictionary that is cut short",
      (extras: Record<string, unknown>) => {
        const terms = extras.relevanceTerms as { dictionary: string };
        return { ...extras, relevanceTerms: { ...terms, dictionary: terms.dictionary.split(" ").slice(0, 5).join(" ") } };
      },
    ],
    ["extras of another shape", () => [1, 2, 3]],
  ])("a snapshot with %s is read without them: the same scores", async (_label, edit) => {
    // Prepare
    const { store, versions } = await seededLevels();
    const snapshots = new InMemoryLevelSnapshotStore();
    await coldLoader(store, versions, snapshots).listAvailable(SCOPE);
    tamper(snapshots, edit);

    // Act
    const skills: ListedSkill[] = await coldLoader(store, versions, snapshots).listAvailable(SCOPE);

    // Assess
    expect(skills.length).toBeGreaterThan(50);
    expect(skills.filter(readsStored).length).toBeLessThan(skills.length);
    expectSameAsTokenized(skills, randomQueries(prng(4)), "tampered");
  });
});
