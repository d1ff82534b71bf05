import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { InvalidTriggerPattern } from "../../shared/skills/skill-errors.js";
import {
  MAX_TRIGGER_PATTERN_LENGTH,
  TRIGGER_PATTERN_DFA_BYTES,
  TriggerPatternCache,
  checkTriggerPattern,
  compileTriggerPattern,
  lazyDfaOf,
  prepareTriggerInput,
} from "../../shared/skills/triggers/skill-trigger-pattern.js";
import { triggerPatternWarnings } from "../../shared/skills/triggers/pattern-dialect.js";

const find = (pattern: string, input: string): boolean =>
  compileTriggerPattern(pattern, new TriggerPatternCache()).find(prepareTriggerInput(input));

describe("checkTriggerPattern: Java-only constructs are rejected by name", () => {
  it.each([
    ["(a)\\1", "backreference \\1"],
    ["(?<w>a)\\k<w>", "named backreference \\k<name>"],
    ["foo(?=bar)", "lookahead (?=…)"],
    ["foo(?!bar)", "negative lookahead (?!…)"],
    ["(?<=foo)bar", "lookbehind (?<=…)"],
    ["(?<!foo)bar", "negative lookbehind (?<!…)"],
    ["a*+b", "possessive quantifier *+"],
    ["a++b", "possessive quantifier ++"],
    ["a?+b", "possessive quantifier ?+"],
    ["a{2}+b", "possessive quantifier {2}+"],
    ["(?>ab)c", "atomic group (?>…)"],
    ["deploy\\Z", "\\Z"],
    ["\\Gdeploy", "\\G"],
    ["\\u00e4nderung", "\\uXXXX"],
    ["\\p{Alpha}+x", "\\p{Alpha}"],
    ["\\p{javaLowerCase}x", "\\p{javaLowerCase}"],
    ["\\p{IsLatin}x", "\\p{IsLatin}"],
    ["a{1001}", "repeat count {1001}"],
    ["x{2,5000}", "repeat count {2,5000}"],
    ["[a-z&&[^aeiou]]x", "intersection &&"],
    ["[[:alpha:]]x", "POSIX class [[:name:]]"],
    ["[:alpha:]x", "[:alpha:] is a set of the characters"],
    ["[a-d[m-p]]x", "nested character class"],
    ["(?U)a+x", "inline flag (?U)"],
    ["(?x)a b", "inline flag (?x)"],
    ["a\\vb", "\\v"],
    ["a\\hb", "\\h"],
    ["a\\Rb", "\\R"],
    ["a\\eb", "\\e"],
    ["a\\cAb", "\\c"],
    ["a\\0101", "octal escapes"],
    ["(?#note)abc", "comment group (?#…)"],
    ["\\b{g}abc", "\\b{…}"],
  ])("%s is rejected naming %s", (pattern, construct) => {
    // Act
    const problem = checkTriggerPattern(pattern);

    // Assess
    expect(problem).toBeDefined();
    expect(problem).toContain(construct);
  });

  it.each([
    ["\\Q(?=a\\E", "quoted text"],
    ["\\(?=x", "escaped parenthesis"],
    ["[(?=]x", "inside a character class"],
    ["[]a]x", "leading ] in a class"],
    ["a\\\\1", "escaped backslash before a digit"],
    ["a+?b", "lazy quantifier"],
    ["a{2}b{1,3}c{4,}", "plain repeat counts"],
    ["(?<name>rev)iew", "named group"],
    ["(?i)deploy", "inline flag i"],
    ["deploy\\z", "\\z"],
    ["\\p{L}+\\p{Greek}x", "Unicode category and script"],
    ["schau.*(diff|PR|änderung)", "the spec's example"],
  ])("%s is accepted (%s)", (pattern) => {
    // Act
    const problem = checkTriggerPattern(pattern);

    // Assess
    expect(problem).toBeUndefined();
  });
});

describe("checkTriggerPattern: unusable patterns", () => {
  it.each([
    ["", "empty pattern"],
    [".*", "empty string"],
    ["a*", "empty string"],
    ["(deploy)?", "empty string"],
    ["^$", "empty string"],
    ["x|", "empty string"],
    [".", "any character"],
    ["[^q]", "any character"],
    ["\\s|\\S", "any character"],
  ])("%j fires on every message and is rejected (%s)", (pattern, reason) => {
    // Act
    const problem = checkTriggerPattern(pattern);

    // Assess
    expect(problem).toContain(reason);
  });

  it("rejects patterns longer than the limit", () => {
    // Prepare
    const pattern = "a".repeat(MAX_TRIGGER_PATTERN_LENGTH + 1);

    // Act
    const problem = checkTriggerPattern(pattern);

    // Assess
    expect(problem).toContain(`at most ${MAX_TRIGGER_PATTERN_LENGTH}`);
  });

  it("rejects programs too large to match quickly, even when each count is allowed", () => {
    // Act
    const problem = checkTriggerPattern("[a-z ]{1,500}x");

    // Assess
    expect(problem).toContain("too complex");
  });

  it("reports RE2 syntax errors with the offending text", () => {
    // Act
    const problem = checkTriggerPattern("deploy(to");

    // Assess
    expect(problem).toContain("missing closing )");
  });
});

describe("compileTriggerPattern", () => {
  it("throws InvalidTriggerPattern carrying the pattern and reason", () => {
    // Act
    const attempt = () => compileTriggerPattern("(?=x)y", new TriggerPatternCache());

    // Assess
    expect(attempt).toThrow(InvalidTriggerPattern);
    try {
      attempt();
    } catch (error) {
      expect(error).toMatchObject({ pattern: "(?=x)y", code: "INVALID_DOCUMENT" });
      expect((error as InvalidTriggerPattern).reason).toContain("lookahead");
    }
  });

  it("finds anywhere in the input, case-insensitively", () => {
    // Assess
    expect(find("PR", "please look at my pr")).toBe(true);
    expect(find("pull request", "Review this PULL REQUEST now")).toBe(true);
    expect(find("schau.*(diff|PR|änderung)", "Schau dir die ÄNDERUNG an")).toBe(true);
    expect(find("schau.*(diff|PR|änderung)", "bitte prüfen")).toBe(false);
    expect(find("^deploy", "please deploy")).toBe(false);
  });

  it("terminates on a catastrophic-backtracking pattern (linear matching)", () => {
    // Prepare
    const compiled = compileTriggerPattern("(a+)+$", new TriggerPatternCache());
    const input = prepareTriggerInput(`${"a".repeat(50_000)}!`);
    const started = performance.now();

    // Act
    const found = compiled.find(input);

    // Assess
    expect(found).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("caches compiled patterns and failures, evicting the least recently used", () => {
    // Prepare
    const cache = new TriggerPatternCache(2.5 * TRIGGER_PATTERN_DFA_BYTES); // room for two compiled patterns
    const first = compileTriggerPattern("alpha", cache);
    compileTriggerPattern("beta", cache);

    // Act
    const again = compileTriggerPattern("alpha", cache); // alpha is now most recent
    compileTriggerPattern("gamma", cache); // evicts beta

    // Assess
    expect(again).toBe(first);
    expect(cache.size).toBe(2);
    expect(cache.get("beta")).toBeUndefined();
    expect(cache.get("alpha")).toBe(first);
    let failure: unknown;
    try {
      compileTriggerPattern("(?=x)", cache);
    } catch (error) {
      failure = error;
    }
    expect(() => compileTriggerPattern("(?=x)", cache)).toThrow(failure as Error);
    expect(cache.get("(?=x)")).toBe(failure);
  });
});

describe("prefilter", () => {
  it("extracts lowercased required literals from the syntax tree", () => {
    // Act
    const compiled = compileTriggerPattern("Deploy(ment)? to (PROD|staging)", new TriggerPatternCache());

    // Assess
    expect(compiled.prefilter).toEqual({
      kind: "all",
      of: [
        { kind: "literal", text: "deploy" },
        { kind: "literal", text: " to " },
        {
          kind: "any",
          of: [
            { kind: "literal", text: "prod" },
            { kind: "literal", text: "staging" },
          ],
        },
      ],
    });
  });

  it("drops non-ASCII literals, and an alternative it cannot prove voids the alternation", () => {
    // Act
    const compiled = compileTriggerPattern("schau.*(diff|PR|änderung)", new TriggerPatternCache());

    // Assess
    expect(compiled.prefilter).toEqual({ kind: "literal", text: "schau" });
  });

  it("gives up on patterns without a required literal", () => {
    // Act
    const compiled = compileTriggerPattern("\\d{3}\\s?[a-z]{2}", new TriggerPatternCache());

    // Assess
    expect(compiled.prefilter).toBeUndefined();
  });

  it("never changes a result: find equals the regex alone on many patterns and inputs", () => {
    // Prepare
    const patterns = [
      "review",
      "PR",
      "pull request",
      "Deploy(ment)? to (prod|staging)",
      "schau.*(diff|PR|änderung)",
      "\\bpr\\b",
      "(?-i:PR)",
      "(?i)TeSt",
      "s{2}kill",
      "kelvin|sigma",
      "ab*c",
      "x(yz)+w",
      "(foo)?bar",
      "[b]ar",
      "[Kk]ey",
      "\\Qa.b\\E",
      "(?:ab){3}",
      "ß+",
      "stra(ss|ß)e",
      "\\d{3}-\\d{4}",
      "^hello",
      "world$",
      "a.b.c",
      "(cat|dog)s? (food|toy)",
      "(a+)+$",
      "[sS]kill",
    ];
    const fragments = [
      "review",
      "REVIEW",
      "pr",
      "PR",
      "pull",
      "request",
      "deploy",
      "deployment",
      " to ",
      "prod",
      "staging",
      "schau",
      "diff",
      "änderung",
      "ÄNDERUNG",
      "test",
      "ss",
      "ſkill",
      "ſſkill",
      "skill",
      "SKILL",
      "Kelvin",
      "\u212Aelvin",
      "sigma",
      "ΣIGMA",
      "abc",
      "ac",
      "abbbc",
      "xyzw",
      "xyzyzw",
      "bar",
      "foobar",
      "key",
      "KEY",
      "\u212Aey",
      "a.b",
      "axb",
      "ababab",
      "ßß",
      "STRASSE",
      "straße",
      "123-4567",
      "hello",
      "world",
      "a b c",
      "cats food",
      "dog toy",
      "aaaa",
      "!",
      " ",
      "\n",
      "İ",
      "ǅ",
    ];
    let seed = 12345;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const inputs = Array.from({ length: 400 }, () =>
      Array.from({ length: 1 + Math.floor(random() * 5) }, () => fragments[Math.floor(random() * fragments.length)]).join(
        random() < 0.5 ? " " : "",
      ),
    );
    const cache = new TriggerPatternCache();
    let skipped = 0;
    let mismatches: string[] = [];

    // Act
    for (const pattern of patterns) {
      const compiled = compileTriggerPattern(pattern, cache);
      for (const raw of inputs) {
        const input = prepareTriggerInput(raw);
        const filtered = compiled.find(input);
        const unfiltered = compiled.findUnfiltered(input);
        if (filtered !== unfiltered) mismatches = [...mismatches, `${pattern} on ${JSON.stringify(raw)}`];
        if (compiled.prefilter !== undefined && !unfiltered) skipped += 1;
      }
    }

    // Assess
    expect(mismatches).toEqual([]);
    expect(skipped).toBeGreaterThan(1000);
  });

  it("the haystack never hides a case-insensitive match of an ASCII character (fold orbits)", () => {
    // Prepare
    let bmp = "";
    for (let code = 1; code < 0x10000; code += 1) {
      if (code < 0xd800 || code > 0xdfff) bmp += String.fromCharCode(code);
    }
    const input = prepareTriggerInput(bmp);
    const mismatches: string[] = [];

    // Act
    for (let code = 0x20; code < 0x7f; code += 1) {
      const ascii = String.fromCharCode(code);
      const regex = RE2JS.compile(RE2JS.quote(ascii), RE2JS.CASE_INSENSITIVE);
      for (const match of regex.matchAll(input.lowered)) {
        const at = match.index ?? -1;
        const seen = input.haystack.slice(at, at + match[0].length);
        if (seen !== ascii.toLowerCase()) mismatches.push(`${ascii} matched U+${match[0].codePointAt(0)?.toString(16)}`);
      }
    }

    // Assess
    expect(input.haystack).toHaveLength(input.lowered.length);
    expect(mismatches).toEqual([]);
  });
});

describe("triggerPatternWarnings", () => {
  it("flags ASCII-only \\b and \\w next to non-ASCII text", () => {
    // Assess
    expect(triggerPatternWarnings("\\bänderung\\b")[0]).toContain("ASCII-only");
    expect(triggerPatternWarnings("\\bdiff\\b")).toEqual([]);
    expect(triggerPatternWarnings("änderung\\\\b")).toEqual([]);
  });
});

describe("character classes in sequence", () => {
  it("accepts a one-character class followed by another class", () => {
    // Act / Assess
    expect(checkTriggerPattern("[a]b[c]")).toBeUndefined();
    expect(checkTriggerPattern("x[^a]y[b]")).toBeUndefined();
    expect(checkTriggerPattern("[]a]x")).toBeUndefined();
    expect(checkTriggerPattern("[a[b]")).toMatch(/nested character class/);
  });
});

describe("trigger memory is bounded", () => {
  it("gives every compiled pattern's lazy DFA our budget instead of re2js's 8 MiB, and it stays inside it over varied messages", () => {
    // Prepare
    const pattern = "[ab]*a[ab]{12}c";
    const compiled = compileTriggerPattern(pattern, new TriggerPatternCache());
    const uncapped = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
    let seed = 7;
    const char = () => "ab"[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % 2];
    const messages = Array.from({ length: 40 }, () => `${Array.from({ length: 4096 }, char).join("")}c`);

    // Act
    for (const message of messages) compiled.findUnfiltered(prepareTriggerInput(message));

    // Assess
    expect(lazyDfaOf(uncapped)?.stateBudget).toBe(8 * 1024 * 1024);
    const memory = compiled.dfaMemory();
    expect(memory?.budget).toBe(TRIGGER_PATTERN_DFA_BYTES);
    expect(memory?.used).toBeGreaterThan(0);
    expect(memory?.used).toBeLessThanOrEqual(TRIGGER_PATTERN_DFA_BYTES);
  });

  it("weighs entries by bytes: a cache of 1 000 distinct patterns holds at most its byte budget", () => {
    // Prepare
    const budget = 16 * TRIGGER_PATTERN_DFA_BYTES;
    const cache = new TriggerPatternCache(budget);

    // Act
    for (let i = 0; i < 1000; i++) compileTriggerPattern(`deploy-${i} to (prod|staging)`, cache);

    // Assess
    expect(cache.calculatedSize).toBeLessThanOrEqual(budget);
    expect(cache.size).toBeLessThan(16);
    expect(cache.size).toBeGreaterThan(0);
  });
});
