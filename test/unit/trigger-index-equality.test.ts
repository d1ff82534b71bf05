import { describe, expect, it } from "vitest";
import type { SkillTrigger } from "../../shared/skills/skill-frontmatter.js";
import { SkillTriggerIndex, type TriggerCandidate } from "../../shared/skills/triggers/skill-trigger-index.js";
import { TriggerPatternCache } from "../../shared/skills/triggers/skill-trigger-pattern.js";
import { referenceMatch } from "../support/trigger-reference.js";
import { prng } from "../support/seeded-random.js";

/**
 * Issue 27: the trigger index is built with less work on a cold instance (keyword postings kept
 * flat and packed on the first match, plain loops). Its answers must not move: over skills shaped
 * like real ones (several KEYWORDS triggers each, multi-word, repeated, token-less and non-ASCII
 * keywords, patterns with and without literals) and messages that fire some of them, the index
 * answers what evaluating every trigger in turn answers (the oracle).
 */

const KEYWORDS = [
  "deploy",
  "Deploy",
  "staging",
  "pull request",
  "Pull-Request",
  "merge request review",
  "code review",
  "PR",
  "CI/CD",
  "e-mail",
  "k8s",
  "2fa",
  "über",
  "café",
  "c",
  "+",
  "go",
  "invoice",
  "refund",
  "SeatGeek",
  "seat geek",
  "on-call",
  "page the on-call engineer",
  "x",
  "release notes",
  "rollback",
  // Whole tokens and near misses of the one-token fast path: case, surrounding space, a trailing
  // newline, non-ASCII letters that lowercase to ASCII (Kelvin sign, dotted capital I).
  "API",
  " deploy ",
  "deploy\n",
  "\u212Aubernetes",
  "kubernetes",
  "İstanbul",
  "istanbul",
  "2fa2fa",
];
const PATTERNS = [
  (i: number) => `deploy(ed|ing)? to (prod|staging)${i % 7}`,
  (i: number) => `ticket-${i}`,
  (i: number) => `(?i)invoice\\s+#?${i}`,
  (i: number) => `\\bpr\\s*${i}\\b`,
  (i: number) => `\\d+[a-z]{${2 + (i % 3)}}\\d+`,
  (i: number) => `^hello ${i % 5}`,
  (i: number) => `änderung ${i % 11}`,
  (i: number) => `(refund|chargeback).*order ${i % 13}`,
  () => "foo(?=bar)",
];
const SEPARATORS = [" ", " ", ", ", "-", "\n", "_", ". ", "/", ""];

function skills(n: number): TriggerCandidate[] {
  const random = prng(27);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  return Array.from({ length: n }, (_, i) => {
    const triggers: SkillTrigger[] = [];
    for (let t = 0; t < 1 + (i % 3); t++) {
      const own = [`kw${i}`, `alt${i}x${t}`];
      const keywords = Array.from({ length: i % 4 }, () => pick(KEYWORDS));
      if (i % 9 === 0) keywords.push(keywords[0] ?? "deploy"); // a repeated keyword counts twice
      triggers.push({ type: "KEYWORDS", keywords: i % 23 === 0 ? [] : [...own, ...keywords] });
    }
    if (i % 2 === 0) triggers.push({ type: "PATTERN", pattern: PATTERNS[i % PATTERNS.length]!(i) });
    return { name: i % 50 === 1 ? "twice" : `skill-${i}`, triggers };
  });
}

function messages(candidates: readonly TriggerCandidate[], count: number): string[] {
  const random = prng(2027);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const firing = (i: number): string => {
    const keywords = candidates[i]!.triggers.find((t) => t.type === "KEYWORDS");
    const words = keywords?.type === "KEYWORDS" ? keywords.keywords : [];
    switch (i % 5) {
      case 0:
        return words.slice(0, Math.ceil(words.length / 2)).join(pick(SEPARATORS));
      case 1:
        return words.slice(0, Math.max(0, Math.ceil(words.length / 2) - 1)).join(" "); // one short of half
      case 2:
        return `deployed to staging${i % 7} ticket-${i} invoice #${i}`;
      case 3:
        return `pr ${i} and 12ab34 then änderung ${i % 11}`;
      default:
        return `refund for order ${i % 13}`;
    }
  };
  return Array.from({ length: count }, (_, m) => {
    const noise = Array.from({ length: 1 + Math.floor(random() * 30) }, () => pick(KEYWORDS) + pick(SEPARATORS)).join("");
    if (m % 4 === 0) return noise;
    const fired = Array.from({ length: 1 + (m % 5) }, () => firing(Math.floor(random() * candidates.length)));
    return `${m % 8 === 1 ? "hello 1 " : ""}${noise} ${fired.join(" ")}`;
  });
}

describe("the trigger index built the issue-27 way", () => {
  const candidates = skills(600);
  const cache = new TriggerPatternCache();
  const index = new SkillTriggerIndex(candidates, cache);
  const texts = messages(candidates, 80);

  it("answers as the oracle, message after message, and fires through keywords, sequences and patterns", () => {
    const results = texts.map((message) => index.match(message));

    expect(results).toEqual(texts.map((message) => referenceMatch(candidates, message, cache)));
    expect(results.filter((names) => names.length > 0).length).toBeGreaterThan(40);
  });

  it("answers as the oracle over the candidates an exclusion mask leaves in", () => {
    const kept = (i: number): boolean => i % 3 !== 1;
    const results = texts.map((message) =>
      index
        .matchCandidates(message, (excluded) => {
          for (let i = 0; i < excluded.length; i++) excluded[i] = kept(i) ? 0 : 1;
        })
        .map((candidate) => candidate.name),
    );

    expect(results).toEqual(
      texts.map((message) =>
        referenceMatch(
          candidates.filter((_, i) => kept(i)),
          message,
          cache,
        ),
      ),
    );
  });
});
