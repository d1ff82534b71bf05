import { describe, expect, it } from "vitest";
import { syntheticMessage, syntheticSkills } from "../../bench/compose-bench-helpers.js";
import type { SkillTrigger } from "../../shared/skills/skill-frontmatter.js";
import {
  MAX_TRIGGER_INPUT_LENGTH,
  SkillTriggerIndex,
  capTriggerInput,
  type TriggerCandidate,
} from "../../shared/skills/triggers/skill-trigger-index.js";
import { MAX_INDEXES_BY_MEMBERS, SkillTriggerMatcher } from "../../shared/skills/triggers/skill-trigger-matcher.js";
import { TriggerPatternCache } from "../../shared/skills/triggers/skill-trigger-pattern.js";
import { TriggerRegexSet } from "../../shared/skills/triggers/trigger-regex-set.js";
import { referenceMatch } from "../support/trigger-reference.js";
import { prng } from "../support/seeded-random.js";

const keywords = (...words: string[]): SkillTrigger => ({ type: "KEYWORDS", keywords: words });
const pattern = (text: string): SkillTrigger => ({ type: "PATTERN", pattern: text });
const skill = (name: string, ...triggers: SkillTrigger[]): TriggerCandidate => ({ name, triggers });

/** Hand-written corner cases of §4a; names say what each one exercises. */
const EDGE_SKILLS: TriggerCandidate[] = [
  skill("multi-word", keywords("pull request", "merge request review", "diff")),
  skill("multi-word-hyphen", keywords("pull-request")),
  skill("three-tokens-alone", keywords("merge request review")),
  skill("tokenless-counts", keywords("c", "go")),
  skill("tokenless-three", keywords("c", "+", "go")),
  skill("tokenless-only", keywords("c", "x")),
  skill("duplicates", keywords("deploy", "deploy", "alpha", "beta", "gamma")),
  skill("duplicate-sequences", keywords("pull request", "pull-request", "a1", "b2", "c3")),
  skill("case", keywords("PR", "DiFF")),
  skill("unicode-keyword", keywords("über", "ſtatus")),
  skill("digits", keywords("42", "c3po", "k8s")),
  skill("or-prefilter", pattern("(deploy|release) to (prod|staging)")),
  skill("or-literals", pattern("foo|bar|baz")),
  skill("non-ascii-literal", pattern("schau.*(diff|PR|änderung)")),
  skill("kelvin-and-long-s", pattern("kelvin|test")),
  skill("anchored", pattern("^hello")),
  skill("anchored-end", pattern("bye$")),
  skill("word-boundary", pattern("\\bpr\\b")),
  skill("literal-free-digits", pattern("\\d{3,}")),
  skill("literal-free-mail", pattern("[a-z]+@[a-z]+")),
  skill("literal-free-greek", pattern("\\p{Greek}+")),
  skill("literal-free-umlaut", pattern("[äöü]{2}")),
  skill("literal-free-multiline", pattern("(?m)^[0-9]")),
  skill("literal-free-synthetic", pattern("\\d+[a-z]{2}\\d+")),
  skill("literal-free-big", pattern("[a-z]{240}\\d")),
  skill("literal-free-dfa-hungry", pattern("[a-h]*[a-c][a-h]{18}[0-9]")),
  skill("same-pattern-1", pattern("\\d+[a-z]{2}\\d+")),
  skill("same-pattern-2", keywords("never1", "never2"), pattern("\\d+[a-z]{2}\\d+")),
  skill("long-literal", pattern("supercalifragilisticexpialidocious-\\d")),
  skill("invalid", pattern("foo(?=bar)")),
  skill("invalid-then-valid", pattern("foo(?=bar)"), keywords("fallback")),
  skill("empty-keywords", { type: "KEYWORDS", keywords: [] }),
  skill("no-triggers"),
  skill("duplicate-name", keywords("twice")),
  skill("duplicate-name", pattern("twice|thrice")),
];

const EDGE_WORDS = [
  "pull",
  "request",
  "merge",
  "review",
  "diff",
  "pr",
  "PR",
  "Pull-Request",
  "c",
  "ä",
  "go",
  "deploy",
  "alpha",
  "beta",
  "gamma",
  "a1",
  "b2",
  "c3",
  "über",
  "ſtatus",
  "status",
  "42",
  "c3po",
  "k8s",
  "release",
  "to",
  "prod",
  "staging",
  "foo",
  "bar",
  "baz",
  "schau",
  "änderung",
  "Kelvin",
  "\u212Aelvin",
  "teſt",
  "TEST",
  "hello",
  "bye",
  "12345",
  "7ab9",
  "a@b",
  "αβγ",
  "öü",
  "\n3",
  "\n",
  "twice",
  "thrice",
  "fallback",
  "never1",
  "😀",
  "İ",
  "x",
  "supercalifragilisticexpialidocious-7",
  "abcdefghabcdefghabcdefgh1",
];

const SEPARATORS = [" ", " ", " ", "-", ", ", "\n", "_", ".", ""];

function edgeMessage(random: () => number, words: readonly string[]): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  return Array.from({ length: 1 + Math.floor(random() * 25) }, () => pick(words) + pick(SEPARATORS)).join("");
}

describe("SkillTriggerIndex", () => {
  it("gives the reference answers (same names, same order) on hand-written corner cases", () => {
    // Prepare
    const random = prng(42);
    const cache = new TriggerPatternCache();
    const index = new SkillTriggerIndex(EDGE_SKILLS, cache);
    const messages = [
      "",
      "pull request",
      "pull a request",
      "pull the request",
      "merge request review and diff",
      "c and go",
      "c x",
      "deploy",
      "deploy deploy",
      "pull request and pull-request",
      "PR diff",
      "über ſtatus",
      "\u212Aelvin",
      "teſt",
      "hello there",
      " hello",
      "ok bye",
      "bye now",
      "a pr.",
      "apr",
      "abcdefghabcdefghabcdefgh1",
      "deploy to prod",
      "Release To Staging",
      `${"q".repeat(240)}1`,
      `a${"h".repeat(18)}7`,
      ...Array.from({ length: 400 }, () => edgeMessage(random, EDGE_WORDS)),
    ];

    // Act
    const results = messages.map((message) => index.match(message));

    // Assess
    expect(results).toEqual(messages.map((message) => referenceMatch(EDGE_SKILLS, message, cache)));
    const neverFiring = ["tokenless-three", "tokenless-only", "invalid", "empty-keywords", "no-triggers"];
    expect([...new Set(results.flat())].sort()).toEqual(
      [...new Set(EDGE_SKILLS.map((s) => s.name))].filter((name) => !neverFiring.includes(name)).sort(),
    );
  });

  it("gives the reference answers over 1 000 synthetic skills and generated messages", () => {
    // Prepare
    const skills = syntheticSkills(1000);
    const cache = new TriggerPatternCache();
    const index = new SkillTriggerIndex(skills, cache);
    const random = prng(7);
    // Some messages carry the tokens of a few skills' keywords, pattern heads or digit runs, so
    // keyword, prefilter and literal-free paths all fire (or nearly fire: 2 of 5 keywords).
    const own = (i: number): string[] => {
      const keywordList = skills[i]?.triggers.find((t) => t.type === "KEYWORDS");
      return keywordList?.type === "KEYWORDS" ? keywordList.keywords : [];
    };
    const firing = (i: number): string => {
      const words = own(i);
      switch (i % 4) {
        case 0:
          return words.slice(0, 3 + (i % 3)).join(" ");
        case 1:
          return words.slice(1, 3).join(", "); // 2 of 5: not enough
        case 2:
          return `${words[0] ?? ""}${i} then ${words[4] ?? ""}`;
        default:
          return `${i}${"ab".slice(0, 1 + (i % 2))}${i}xyz`;
      }
    };
    const messages = Array.from({ length: 120 }, (_, i) => {
      const base = syntheticMessage(1 + Math.floor(random() * 2048), i + 1);
      if (i % 3 === 0) return base;
      const extra = Array.from({ length: 1 + (i % 4) }, () => firing(Math.floor(random() * skills.length)));
      return `${base} ${extra.join(" ")} ${edgeMessage(random, EDGE_WORDS)}`;
    });

    // Act
    const results = messages.map((message) => index.match(message));

    // Assess
    expect(results).toEqual(messages.map((message) => referenceMatch(skills, message, cache)));
    expect(results.filter((names) => names.length > 0).length).toBeGreaterThan(40);
  });

  it("falls back to running patterns one by one when a set's DFA gives up, with the same answers", () => {
    // Prepare
    const random = prng(3);
    const hungry = "[a-h]*[a-c][a-h]{18}[0-9]";
    const letters = Array.from({ length: 16_000 }, () => "abcdefgh"[Math.floor(random() * 8)]).join("");
    const text = `${letters}a${"h".repeat(18)}5 123`;
    const candidates = [skill("hungry", pattern(hungry)), skill("digits", pattern("\\d{3,}")), skill("mail", pattern("[a-z]+@[a-z]+"))];
    const cache = new TriggerPatternCache();
    const index = new SkillTriggerIndex(candidates, cache);
    // The index groups the two literal-free patterns into one set ("@" is a literal of "mail").
    const probe = new TriggerRegexSet([hungry, "\\d{3,}"]);

    // Act
    const probed = probe.match(text);
    const fromIndex = index.match(text);
    const later = index.match("x@y 12345");

    // Assess
    expect(probed).toBeUndefined(); // the same set in the index gives up on this text too
    expect(probe.usable).toBe(false);
    expect(probe.match("123")).toBeUndefined();
    expect(fromIndex).toEqual(["hungry", "digits"]);
    expect(fromIndex).toEqual(referenceMatch(candidates, text, cache));
    expect(later).toEqual(["digits", "mail"]);
  });

  it("answers from a set exactly which of its patterns occur", () => {
    // Prepare
    const set = new TriggerRegexSet(["\\d{3,}", "[a-z]+@[a-z]+", "^hello", "(?m)^[0-9]"]);

    // Act
    const matched = set.match("say hello\n9 to a@b");

    // Assess
    expect(matched).toEqual([1, 3]);
    expect(set.match("HELLO 1234")).toEqual([0, 2]);
  });

  it("asks accept once per candidate and leaves rejected candidates out", () => {
    // Prepare
    const skills = [skill("a", keywords("deploy")), skill("b", pattern("deploy")), skill("c", keywords("deploy"))];
    const index = new SkillTriggerIndex(skills, new TriggerPatternCache());
    const asked: string[] = [];

    // Act
    const names = index.match("deploy now", (candidate) => {
      asked.push(candidate.name);
      return candidate.name !== "b";
    });

    // Assess
    expect(names).toEqual(["a", "c"]);
    expect(asked).toEqual(["a", "b", "c"]);
  });

  it("looks only at the first MAX_TRIGGER_INPUT_LENGTH characters, without splitting a word", () => {
    // Prepare
    const index = new SkillTriggerIndex([skill("late", keywords("deploy")), skill("cut", keywords("deplo"))], new TriggerPatternCache());
    const filler = "x ".repeat(MAX_TRIGGER_INPUT_LENGTH / 2 - 3);

    // Act
    const inside = index.match(`${filler}deploy`);
    const straddling = index.match(`${filler}deployment`);
    const beyond = index.match(`${filler}abc deploy`);
    const pairAtCut = capTriggerInput(`${"a".repeat(MAX_TRIGGER_INPUT_LENGTH - 1)}😀`);

    // Assess
    expect(`${filler}deploy`.length).toBe(MAX_TRIGGER_INPUT_LENGTH);
    expect(inside).toEqual(["late"]);
    expect(straddling).toEqual([]);
    expect(beyond).toEqual([]);
    expect(pairAtCut).toBe("a".repeat(MAX_TRIGGER_INPUT_LENGTH - 1)); // never half a surrogate pair
  });

  it("finishes a hostile 10 MB message quickly", () => {
    // Prepare
    const index = new SkillTriggerIndex(syntheticSkills(200), new TriggerPatternCache());
    const hostile = "123ab456x ".repeat(1_000_000);
    const started = performance.now();

    // Act
    const names = index.match(hostile);

    // Assess
    expect(names.length).toBeGreaterThan(0); // the literal-free synthetic patterns fire on it
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe("SkillTriggerMatcher index cache", () => {
  const skills = [skill("deploy", keywords("deploy")), skill("review", keywords("review"))];

  it("reuses the index for the same array and for a fresh array of the same skills", () => {
    // Prepare
    const matcher = new SkillTriggerMatcher(new TriggerPatternCache());

    // Act
    const first = matcher.indexFor(skills);
    const again = matcher.indexFor(skills);
    const copy = matcher.indexFor([...skills]);

    // Assess
    expect(again).toBe(first);
    expect(copy).toBe(first);
  });

  it("builds a new index when the array or its skills change", () => {
    // Prepare
    const matcher = new SkillTriggerMatcher(new TriggerPatternCache());
    const list = [...skills];
    const before = matcher.match(list, "deploy it");

    // Act
    list.push(skill("later", keywords("it")));
    const grown = matcher.match(list, "deploy it");
    list[0] = skill("deploy", keywords("nothing"));
    const replaced = matcher.match(list, "deploy it");

    // Assess
    expect(before).toEqual(["deploy"]);
    expect(grown).toEqual(["deploy", "later"]);
    expect(replaced).toEqual(["later"]);
  });

  it("keeps the indexes of the most recently used member lists when they arrive as fresh arrays", () => {
    // Prepare
    const matcher = new SkillTriggerMatcher(new TriggerPatternCache());
    const lists = Array.from({ length: MAX_INDEXES_BY_MEMBERS + 1 }, (_, i) => [skill(`s${i}`, keywords(`word${i}`))]);
    const [oldest, second] = lists as [TriggerCandidate[], TriggerCandidate[]];
    const indexes = lists.slice(0, MAX_INDEXES_BY_MEMBERS).map((list) => matcher.indexFor([...list]));
    matcher.indexFor([...oldest]); // the first list is now the most recently used

    // Act
    matcher.indexFor([...(lists[MAX_INDEXES_BY_MEMBERS] as TriggerCandidate[])]);

    // Assess
    expect(matcher.indexFor([...oldest])).toBe(indexes[0]);
    expect(matcher.indexFor([...second])).not.toBe(indexes[1]);
  });
});
