import { describe, expect, it } from "vitest";
import { LiteralAutomaton } from "../../shared/skills/triggers/trigger-literal-automaton.js";
import { prng } from "../support/seeded-random.js";

/** The literals found, as sorted texts (ids of equal texts show up once per id). */
function found(automaton: LiteralAutomaton, text: string): string[] {
  return automaton
    .find(text)
    .map((id) => automaton.literals[id] as string)
    .sort();
}

function naive(literals: readonly string[], text: string): string[] {
  return literals.filter((literal) => text.includes(literal)).sort();
}

function randomText(random: () => number, alphabet: string, length: number): string {
  return Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
}

describe("LiteralAutomaton", () => {
  it("finds overlapping literals in one pass (he, she, his, hers)", () => {
    // Prepare
    const automaton = new LiteralAutomaton(["he", "she", "his", "hers"]);

    // Act
    const result = found(automaton, "ushers");

    // Assess
    expect(result).toEqual(["he", "hers", "she"]);
  });

  it("reports literals that are prefixes or suffixes of each other", () => {
    // Prepare
    const automaton = new LiteralAutomaton(["a", "ab", "abc", "bc", "c", "abcd"]);

    // Assess
    expect(found(automaton, "xabcx")).toEqual(["a", "ab", "abc", "bc", "c"]);
    expect(found(automaton, "bc")).toEqual(["bc", "c"]);
    expect(found(automaton, "abd")).toEqual(["a", "ab"]);
    expect(found(automaton, "zzz")).toEqual([]);
  });

  it("follows failure links out of a partial match (aab contains ab)", () => {
    // Prepare
    const automaton = new LiteralAutomaton(["aab", "ab", "bba"]);

    // Assess
    expect(found(automaton, "aaab")).toEqual(["aab", "ab"]);
    expect(found(automaton, "abba")).toEqual(["ab", "bba"]);
  });

  it("reports each literal once however often it occurs, and duplicates under each id", () => {
    // Prepare
    const automaton = new LiteralAutomaton(["ab", "ab", "b"]);

    // Act
    const ids = automaton.find("ababab");

    // Assess
    expect([...ids].sort()).toEqual([0, 1, 2]);
  });

  it("handles an empty set and empty literals", () => {
    // Prepare
    const none = new LiteralAutomaton([]);
    const withEmpty = new LiteralAutomaton(["", "x"]);

    // Assess
    expect(none.find("anything")).toEqual([]);
    expect(none.find("")).toEqual([]);
    expect(found(withEmpty, "")).toEqual([""]);
    expect(found(withEmpty, "axa")).toEqual(["", "x"]);
  });

  it("treats characters outside the literals' alphabet, including non-ASCII ones, as breaks", () => {
    // Prepare
    const automaton = new LiteralAutomaton(["über", "ab"]);

    // Assess
    expect(found(automaton, "a\u00e4b über")).toEqual(["über"]);
    expect(found(automaton, "a😀b")).toEqual([]);
    expect(found(automaton, "xab😀")).toEqual(["ab"]);
  });

  it("confirms literals longer than the indexed prefix, so a shared prefix is not enough", () => {
    // Prepare
    const automaton = new LiteralAutomaton(["abcdef", "abcxyz", "bcd"], { prefixLength: 3 });

    // Assess
    expect(automaton.prefixLength).toBe(3);
    expect(found(automaton, "--abcxyq--")).toEqual([]);
    expect(found(automaton, "--abcdef--")).toEqual(["abcdef", "bcd"]);
    expect(found(automaton, "abcdeabcxyz")).toEqual(["abcxyz", "bcd"]);
  });

  it("shortens the indexed prefix to fit the table budget and stays exact", () => {
    // Prepare
    const random = prng(11);
    const literals = Array.from({ length: 200 }, () => randomText(random, "abcdefghij", 12));
    const automaton = new LiteralAutomaton(literals, { maxTableEntries: 2000 });
    const texts = Array.from({ length: 50 }, (_, i) => `${randomText(random, "abcdefghij", 300)}${literals[i * 3] ?? ""}`);

    // Act
    const results = texts.map((text) => found(automaton, text));

    // Assess
    expect(automaton.prefixLength).toBeLessThan(12);
    expect(automaton.stateCount * 11).toBeLessThanOrEqual(2000);
    expect(results).toEqual(texts.map((text) => naive(literals, text)));
  });

  it("agrees with includes on random literals and texts over a small alphabet", () => {
    // Prepare
    const random = prng(7);
    const cases = Array.from({ length: 200 }, () => {
      const literals = Array.from({ length: 1 + Math.floor(random() * 12) }, () => randomText(random, "abc", 1 + Math.floor(random() * 5)));
      return { literals, text: randomText(random, "abcd", Math.floor(random() * 40)) };
    });

    // Act
    const results = cases.map(({ literals, text }) => found(new LiteralAutomaton(literals), text));

    // Assess
    expect(results).toEqual(cases.map(({ literals, text }) => naive(literals, text)));
  });

  it("gives the same answer when one automaton scans many texts in a row", () => {
    // Prepare
    const automaton = new LiteralAutomaton(["deploy", "prod", "rod", "staging"]);

    // Act
    const first = found(automaton, "deploy to prod");
    const second = found(automaton, "nothing here");
    const third = found(automaton, "staging rod");

    // Assess
    expect(first).toEqual(["deploy", "prod", "rod"]);
    expect(second).toEqual([]);
    expect(third).toEqual(["rod", "staging"]);
  });
});
