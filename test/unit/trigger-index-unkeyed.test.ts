import { describe, expect, it, vi } from "vitest";
import type * as LazyLibraries from "../../shared/lazy/lazy-libraries.js";
import { CANDIDATE_FIRED, CANDIDATE_OPEN } from "../../shared/skills/triggers/trigger-candidate-marks.js";
import { patternLiteralsExtras } from "../../shared/skills/triggers/pattern-literals-extras.js";
import { memoizedRequiredLiterals } from "../../shared/skills/triggers/pattern-prefilter.js";
import {
  decodeRequiredChars,
  encodeRequiredChars,
  mayHoldMatch,
  messageCharsOf,
  requiredChars,
} from "../../shared/skills/triggers/pattern-required-chars.js";
import {
  TriggerPatternCache,
  compileTriggerPattern,
  prepareTriggerInput,
  triggerPatternProgramSize,
  type TriggerInput,
} from "../../shared/skills/triggers/skill-trigger-pattern.js";
import { PatternTriggerIndex } from "../../shared/skills/triggers/trigger-pattern-index.js";
import { TriggerTimeBudget } from "../../shared/skills/triggers/trigger-time-budget.js";
import { memoizedUnkeyedFacts, rememberUnkeyedFacts, storedUnkeyedFacts } from "../../shared/skills/triggers/unkeyed-pattern-facts.js";
import { prng } from "../support/seeded-random.js";

/** Counts uses of re2js: a cold instance whose message no pattern can match must not need it. */
const used = vi.hoisted(() => ({ re2js: 0 }));
vi.mock("../../shared/lazy/lazy-libraries.js", async (importOriginal) => {
  const original = await importOriginal<typeof LazyLibraries>();
  return {
    ...original,
    re2jsLibrary: () => {
      used.re2js += 1;
      return original.re2jsLibrary();
    },
  };
});

/**
 * Issue 27: patterns without a required literal are no longer compiled when the index is built;
 * a message is first checked for the characters every match holds (pattern-required-chars.ts).
 * The index must still answer, for every pattern and message, what the pattern's own `find` does.
 */

const ATOMS = [
  "a",
  "b",
  "k",
  "s",
  "K",
  "S",
  "z",
  "0",
  "7",
  " ",
  "-",
  "@",
  "\\.",
  "é",
  "É",
  "ß",
  "σ",
  "Σ",
  "ſ",
  "\u212A",
  "😀",
  "İ",
  "ı",
  "ǅ",
  "\\d",
  "\\D",
  "\\w",
  "\\W",
  "\\s",
  "\\S",
  ".",
  "\\pL",
  "\\p{Greek}",
  "\\x{212A}",
  "\\n",
  "[a-c]",
  "[^a-c]",
  "[ks]",
  "[KS]",
  "[0-9x]",
  "[é-ë]",
  "[^\\s]",
  "[σς]",
  "[A-Z]",
  "[_]",
  "[\\-@]",
  "[^\\x00-\\x7f]",
  "[\\x{80}-\\x{10FFFF}]",
];
const ASSERTIONS = ["^", "$", "\\b", "\\B", "\\A", "\\z", "(?m:^)", "(?m:$)"];
const REPEATS = ["*", "+", "?", "{2}", "{1,}", "{0,2}", "{1,3}", "+?", "*?", "??"];
const FLAG_GROUPS = ["(?i:", "(?-i:", "(?s:", "(?m:", "(?:", "("];
const PREFIXES = ["", "", "", "(?i)", "(?-i)", "(?s)", "(?m)", "(?-i)(?s)"];

function patternGenerator(random: () => number): () => string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const node = (depth: number): string => {
    const roll = random();
    if (depth > 3 || roll < 0.35) return random() < 0.1 ? pick(ASSERTIONS) : pick(ATOMS);
    if (roll < 0.6) return Array.from({ length: 2 + Math.floor(random() * 3) }, () => node(depth + 1)).join("");
    if (roll < 0.75) {
      const alternatives = Array.from({ length: 2 + Math.floor(random() * 2) }, () => node(depth + 1));
      return `(?:${alternatives.join("|")})`;
    }
    if (roll < 0.9) {
      const sub = node(depth + 1);
      return `${sub.length === 1 ? sub : `(?:${sub})`}${pick(REPEATS)}`;
    }
    return `${pick(FLAG_GROUPS)}${node(depth + 1)})`;
  };
  return () => pick(PREFIXES) + node(0);
}

const MESSAGE_PARTS = [
  "a",
  "b",
  "k",
  "s",
  "K",
  "S",
  "z",
  "x",
  "A",
  "C",
  "0",
  "7",
  "42",
  " ",
  "  ",
  "-",
  "@",
  ".",
  "_",
  "\n",
  "\t",
  "é",
  "É",
  "ë",
  "ß",
  "σ",
  "ς",
  "Σ",
  "ſ",
  "\u212A",
  "😀",
  "İ",
  "ı",
  "ǅ",
  "α",
  "ab",
  "ks",
  "abc 7",
  "deploy",
];

function messageGenerator(random: () => number): () => string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  return () => Array.from({ length: Math.floor(random() * 9) }, () => pick(MESSAGE_PARTS)).join("");
}

/** Room for every generated pattern (the default budget would evict and compile again). */
const roomyCache = (): TriggerPatternCache => new TriggerPatternCache(2 ** 31);

/** The reference: each pattern's own `find`; a pattern that does not compile never fires. */
function reference(patterns: readonly string[]): (input: TriggerInput) => boolean[] {
  const cache = roomyCache();
  const compiled = patterns.map((pattern) => {
    try {
      return compileTriggerPattern(pattern, cache);
    } catch {
      return undefined;
    }
  });
  return (input) => compiled.map((pattern) => pattern?.find(input) ?? false);
}

function indexFinds(index: PatternTriggerIndex, size: number, input: TriggerInput, budget?: TriggerTimeBudget): boolean[] {
  const marks = new Uint8Array(size).fill(CANDIDATE_OPEN);
  index.match(input, marks, budget);
  return Array.from(marks, (mark) => mark === CANDIDATE_FIRED);
}

describe("PatternTriggerIndex: patterns without literals, ruled out by their required characters", () => {
  it("answers what each pattern's find answers, over many generated patterns and messages", () => {
    // Prepare
    const random = prng(2701);
    const nextPattern = patternGenerator(random);
    const nextMessage = messageGenerator(random);
    const patterns = Array.from({ length: 1200 }, nextPattern);
    const messages = Array.from({ length: 400 }, nextMessage);
    const referenceFinds = reference(patterns);
    const index = new PatternTriggerIndex(
      patterns.map((pattern, owner) => ({ owner, pattern })),
      roomyCache(),
    );
    const classes = patterns.map((pattern) => (memoizedRequiredLiterals(pattern) === undefined ? requiredChars(pattern) : undefined));
    const mismatches: string[] = [];
    let matches = 0;
    let ruledOutByChars = 0;

    // Act
    for (const message of messages) {
      const input = prepareTriggerInput(message);
      const expected = referenceFinds(input);
      const actual = indexFinds(index, patterns.length, input);
      const chars = messageCharsOf(input.lowered);
      expected.forEach((found, i) => {
        const pattern = patterns[i] as string;
        if (actual[i] !== found) mismatches.push(`${pattern} on ${JSON.stringify(message)}: ${actual[i]} instead of ${found}`);
        if (found) matches += 1;
        const required = classes[i];
        if (required !== undefined && !mayHoldMatch(required, chars)) {
          ruledOutByChars += 1;
          if (found) mismatches.push(`${pattern} ruled out on ${JSON.stringify(message)}, which it matches`);
        }
      });
    }

    // Assess
    expect(mismatches.slice(0, 20)).toEqual([]);
    expect(matches).toBeGreaterThan(50_000);
    expect(ruledOutByChars).toBeGreaterThan(50_000);
  }, 60_000);

  it("claims, per pattern, only classes that the characters of every match satisfy", () => {
    // Prepare
    const random = prng(27);
    const nextPattern = patternGenerator(random);
    const nextMessage = messageGenerator(random);
    const patterns = Array.from({ length: 400 }, nextPattern);
    const messages = Array.from({ length: 300 }, nextMessage);
    const cache = roomyCache();
    const unsound: string[] = [];
    let spans = 0;

    // Act
    for (const pattern of patterns) {
      let compiled;
      try {
        compiled = compileTriggerPattern(pattern, cache);
      } catch {
        continue;
      }
      const classes = requiredChars(pattern);
      for (const message of messages) {
        const input = prepareTriggerInput(message);
        const span = compiled.span(input);
        if (span === undefined) continue;
        spans += 1;
        // The matched text alone, not the whole message, must hold a character of each class.
        if (!mayHoldMatch(classes, messageCharsOf(input.lowered.slice(span.start, span.end)))) {
          unsound.push(`${pattern} matched ${JSON.stringify(input.lowered.slice(span.start, span.end))}`);
        }
      }
    }

    // Assess
    expect(unsound.slice(0, 20)).toEqual([]);
    expect(spans).toBeGreaterThan(10_000);
  }, 60_000);

  it("derives the classes from the case-insensitive syntax tree", () => {
    // Act
    const show = (pattern: string): string[] =>
      requiredChars(pattern).map(({ ascii, nonAscii }) => {
        let text = "";
        for (let c = 33; c < 127; c++) if (((ascii[c >> 5] as number) & (1 << (c & 31))) !== 0) text += String.fromCharCode(c);
        return text + (nonAscii ? "+" : "");
      });

    // Assess
    expect(show("\\d+[a-z]{2}\\d+[xyz]")).toEqual(["XYZxyz", "0123456789"]);
    expect(show("k")).toEqual(["Kk+"]); // K U+212A folds to k
    expect(show("(?-i)k")).toEqual(["k"]);
    expect(show("é")).toEqual([]); // a case-folded non-ASCII rune claims nothing
    expect(show("(?-i)é")).toEqual(["+"]);
    expect(show("(?:x|\\d)#")).toEqual(["#", "0123456789Xx"]);
    expect(show("x*\\d?")).toEqual([]);
    expect(show("(?:x|y*)#")).toEqual(["#"]);
    expect(show("\\b(\\d{2,})\\b")).toEqual(["0123456789"]);
  });

  it("compiles nothing, and needs no re2js, while the message lacks the characters of every pattern", () => {
    // Prepare: facts as a level snapshot hands them over (texts not analyzed in this process yet)
    const texts = ["\\d+[a-z]{2}\\d+[xyz]", "\\d{3}\\s\\d{4}", "[0-9]+[%‰]", "[#@]\\w+"];
    const fresh = texts.map((text) => `${text}(?:)`);
    const stored = texts.map((text) => storedUnkeyedFacts(text));
    fresh.forEach((text, i) => rememberUnkeyedFacts(text, stored[i]));
    patternLiteralsExtras.use({ patternLiterals: fresh.map((text) => [text, null]) }, { refs: [], prepared: new Map() });
    const cache = new TriggerPatternCache();
    used.re2js = 0;

    // Act
    const index = new PatternTriggerIndex(
      fresh.map((pattern, owner) => ({ owner, pattern })),
      cache,
    );
    const quiet = indexFinds(index, fresh.length, prepareTriggerInput("please review the deploy to staging"));
    const quietUses = used.re2js;
    const loud = indexFinds(index, fresh.length, prepareTriggerInput("ticket 12ab34x, call 555 1234 #now"));

    // Assess
    expect(quiet).toEqual([false, false, false, false]);
    expect(quietUses).toBe(0);
    expect(cache.size).toBe(0);
    expect(loud).toEqual([true, true, false, true]);
    expect(used.re2js).toBeGreaterThan(0);
  });

  it("reports as skipped by a spent time budget only patterns that could match (not those the message's characters rule out)", () => {
    // Prepare
    const patterns = ["\\d{3,}", "[a-z]+@[a-z]+\\d", "#\\d", "[%‰]\\d"];
    const index = new PatternTriggerIndex(
      patterns.map((pattern, owner) => ({ owner, pattern })),
      new TriggerPatternCache(),
    );
    let now = 0;
    const budget = new TriggerTimeBudget(1, () => (now += 5));

    // Act
    const fired = indexFinds(index, patterns.length, prepareTriggerInput("mail a@b 1234"), budget);

    // Assess
    expect(fired).toEqual([false, false, false, false]);
    expect([...budget.skipped].sort()).toEqual([0, 1]);
  });

  it("stores unkeyed facts in the level extras and takes back only well-formed ones of its version", () => {
    // Prepare
    const pattern = "\\d+[a-z]{3}\\d+[xyz]";
    const prepared = new Map([
      ["a", { etag: "1", outcome: { ok: true as const, definition: { triggers: [{ type: "PATTERN", pattern }] }, warnings: [] } }],
      [
        "b",
        { etag: "2", outcome: { ok: true as const, definition: { triggers: [{ type: "PATTERN", pattern: "deploy\\d" }] }, warnings: [] } },
      ],
    ]);
    const good = storedUnkeyedFacts(pattern) as { v: number; size: number; chars: string[] };
    const variants = {
      good: `${pattern}(?:)`,
      version: `${pattern}(?:)(?:)`,
      size: `${pattern}(?:)(?:)(?:)`,
      hex: `${pattern}(?:)(?:)(?:)(?:)`,
      empty: `${pattern}(?:)(?:)(?:)(?:)(?:)`,
    };

    // Act
    const extras = JSON.parse(JSON.stringify(patternLiteralsExtras.of({ refs: [], prepared }))) as { patternLiterals: unknown[][] };
    rememberUnkeyedFacts(variants.good, good);
    rememberUnkeyedFacts(variants.version, { ...good, v: 2 });
    rememberUnkeyedFacts(variants.size, { ...good, size: 0 });
    rememberUnkeyedFacts(variants.hex, { ...good, chars: ["XYZ"] });
    rememberUnkeyedFacts(variants.empty, { ...good, chars: ["0".repeat(32)] });

    // Assess
    expect(extras.patternLiterals).toEqual([
      [pattern, null, good],
      ["deploy\\d", memoizedRequiredLiterals("deploy\\d")],
    ]);
    expect(good.chars).toEqual(requiredChars(pattern).map(encodeRequiredChars));
    expect(good.size).toBe(compileTriggerPattern(pattern).programSize);
    expect(memoizedUnkeyedFacts(variants.good)).toEqual({ programSize: good.size, chars: requiredChars(pattern) });
    for (const text of [variants.version, variants.size, variants.hex, variants.empty]) {
      // Analyzed here instead.
      expect(memoizedUnkeyedFacts(text)).toEqual({ programSize: triggerPatternProgramSize(text), chars: requiredChars(pattern) });
    }
    expect(decodeRequiredChars(`${"0".repeat(32)}+`)).toEqual({ ascii: [0, 0, 0, 0], nonAscii: true });
  });
});
