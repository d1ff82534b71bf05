import { RE2JS, RE2Set } from "re2js";
import { describe, expect, it } from "vitest";
import { RE2JS_PREFILTER_TYPE, re2jsPrefilterOf } from "../../shared/skills/triggers/pattern-prefilter.js";
import { RE2JS_FOLD_CASE, RE2JS_REGEXP_OP, re2jsSyntaxTreeOf } from "../../shared/skills/triggers/pattern-required-chars.js";

/**
 * The trigger engine reads re2js internals (re2js 2.10.0, pinned in package.json): the prefilter
 * tree of an RE2 (pattern-prefilter.ts), the syntax tree an RE2Set keeps (pattern-required-chars.ts)
 * and the set DFA of an RE2Set (trigger-regex-set.ts). The reads are defensive, so after a re2js
 * upgrade that changes a shape nothing else fails: triggers just get slower (no prefilter, no
 * required characters, no set). Renumbered node types would be worse: an OR read as an AND
 * demands every alternative, a STAR read as a PLUS demands what is optional, and real matches are
 * skipped. These tests fail first and say what moved.
 */
const CHANGED =
  "re2js internals read by the trigger engine changed; adapt pattern-prefilter.ts / pattern-required-chars.ts / trigger-regex-set.ts before upgrading:";

const { EXACT, AND, OR } = RE2JS_PREFILTER_TYPE;

describe("re2js prefilter (read by pattern-prefilter.ts)", () => {
  it("is the `prefilter` field of `RE2JS.compile(p).re2()`, null when re2js proves no literal", () => {
    // Act
    const literal = re2jsPrefilterOf("deploy");
    const none = re2jsPrefilterOf("\\d{3}\\s?[a-z]{2}");

    // Assess
    expect(typeof literal, `${CHANGED} re2().prefilter of "deploy" is no longer a node object`).toBe("object");
    expect(literal, `${CHANGED} re2().prefilter of "deploy" is no longer a node object`).not.toBeNull();
    expect(none, `${CHANGED} a pattern without literals no longer leaves re2().prefilter null`).toBeNull();
  });

  it("holds a literal as an EXACT node (type 1) with the text, case kept, in `str`", () => {
    // Act
    const node = re2jsPrefilterOf("Deploy");

    // Assess
    expect(node, `${CHANGED} a literal is no longer { type: ${EXACT}, str }`).toMatchObject({ type: EXACT, str: "Deploy" });
  });

  it("holds a concatenation as an AND node (type 2) and an alternation as an OR node (type 3), children in `subs`", () => {
    // Act
    const concatenation = re2jsPrefilterOf("deploy.*ship");
    const alternation = re2jsPrefilterOf("deploy|ship");
    const nested = re2jsPrefilterOf("Deploy(ment)? to (PROD|staging)");

    // Assess
    expect(concatenation, `${CHANGED} "a.*b" is no longer { type: ${AND}, subs }`).toMatchObject({
      type: AND,
      subs: [
        { type: EXACT, str: "deploy" },
        { type: EXACT, str: "ship" },
      ],
    });
    expect(alternation, `${CHANGED} "a|b" is no longer { type: ${OR}, subs }`).toMatchObject({
      type: OR,
      subs: [
        { type: EXACT, str: "deploy" },
        { type: EXACT, str: "ship" },
      ],
    });
    expect(nested, `${CHANGED} a concatenation holding an alternation no longer nests an OR in the AND's subs`).toMatchObject({
      type: AND,
      subs: [
        { type: EXACT, str: "Deploy" },
        { type: EXACT, str: " to " },
        {
          type: OR,
          subs: [
            { type: EXACT, str: "PROD" },
            { type: EXACT, str: "staging" },
          ],
        },
      ],
    });
  });

  it("leaves an optional or repeated-from-zero part out of an AND rather than requiring it", () => {
    // Act
    const node = re2jsPrefilterOf("deploy(ment)?(x)*");

    // Assess
    expect(node, `${CHANGED} optional parts now show up as requirements`).toMatchObject({ type: EXACT, str: "deploy" });
  });
});

describe("re2js syntax tree (read by pattern-required-chars.ts)", () => {
  const { LITERAL, CHAR_CLASS, ANY_CHAR_NOT_NL, ANY_CHAR, CAPTURE, STAR, PLUS, QUEST, CONCAT, ALTERNATE } = RE2JS_REGEXP_OP;
  const node = (pattern: string): { op: number; flags: number; runes: number[]; subs: unknown[] } => {
    const tree = re2jsSyntaxTreeOf(pattern) as { op: number; flags: number; runes: ArrayLike<number>; subs: unknown[] };
    return { op: tree.op, flags: tree.flags, runes: Array.from(tree.runes), subs: tree.subs };
  };

  it("is `regexps[i]` of an RE2Set (CASE_INSENSITIVE), with a literal as a LITERAL node (2) whose `flags` carry FOLD_CASE (1) unless (?-i)", () => {
    // Act
    const folded = node("k");
    const exact = node("(?-i)k");

    // Assess
    expect(folded.op, `${CHANGED} a literal is no longer op ${LITERAL}`).toBe(LITERAL);
    expect(folded.flags & RE2JS_FOLD_CASE, `${CHANGED} a case-insensitive literal no longer has flag ${RE2JS_FOLD_CASE}`).toBe(
      RE2JS_FOLD_CASE,
    );
    expect(exact.flags & RE2JS_FOLD_CASE, `${CHANGED} a (?-i) literal now has flag ${RE2JS_FOLD_CASE}`).toBe(0);
    expect(exact.runes, `${CHANGED} a literal's \`runes\` are no longer its code points`).toEqual([0x6b]);
  });

  it("holds a class as a CHAR_CLASS node (3) of [lo, hi] pairs, already case-folded, and dots as nodes 4 and 5", () => {
    // Act
    const digits = node("[0-9]");
    const letters = node("[a-c]");

    // Assess
    expect(digits, `${CHANGED} a class is no longer { op: ${CHAR_CLASS}, runes: [lo, hi, …] }`).toMatchObject({
      op: CHAR_CLASS,
      runes: [0x30, 0x39],
    });
    expect(letters.runes, `${CHANGED} a case-insensitive class no longer holds both cases`).toEqual([0x41, 0x43, 0x61, 0x63]);
    expect(node(".").op, `${CHANGED} . is no longer op ${ANY_CHAR_NOT_NL}`).toBe(ANY_CHAR_NOT_NL);
    expect(node("(?s).").op, `${CHANGED} (?s). is no longer op ${ANY_CHAR}`).toBe(ANY_CHAR);
  });

  it("numbers CAPTURE 12, STAR 13, PLUS 14, QUEST 15, CONCAT 17, ALTERNATE 18, children in `subs`, counted repeats simplified away", () => {
    // Act
    const tree = node("(?:0|a+)(1)x*y?z");
    const opsOf = (subs: unknown[]): number[] => subs.map((sub) => (sub as { op: number }).op);
    const repeat = node("x{2,}");

    // Assess
    expect(tree.op, `${CHANGED} a concatenation is no longer op ${CONCAT}`).toBe(CONCAT);
    expect(opsOf(tree.subs), `${CHANGED} ALTERNATE, CAPTURE, STAR, QUEST, LITERAL are no longer numbered as read`).toEqual([
      ALTERNATE,
      CAPTURE,
      STAR,
      QUEST,
      LITERAL,
    ]);
    expect(opsOf((tree.subs[0] as { subs: unknown[] }).subs), `${CHANGED} PLUS is no longer op ${PLUS}`).toEqual([LITERAL, PLUS]);
    expect(opsOf(repeat.subs), `${CHANGED} x{2,} is no longer simplified to x x+`).toEqual([LITERAL, PLUS]);
  });

  it("case-folds an ASCII literal to a non-ASCII character only for k, K (K U+212A) and s, S (ſ U+017F)", () => {
    // Prepare
    const nonAscii: string[] = [];
    for (let code = 0x80; code <= 0x10ffff; code++) if (code < 0xd800 || code > 0xdfff) nonAscii.push(String.fromCodePoint(code));
    const set = new RE2Set(RE2Set.UNANCHORED, RE2JS.CASE_INSENSITIVE);
    for (let code = 0; code < 128; code++) set.add(RE2JS.quote(String.fromCharCode(code)));
    set.compile();

    // Act
    const folding = set.match(nonAscii.join("")).map((code) => String.fromCharCode(code));
    const kelvin = RE2JS.compile("k", RE2JS.CASE_INSENSITIVE).test("\u212A");
    const longS = RE2JS.compile("S", RE2JS.CASE_INSENSITIVE).test("\u017F");

    // Assess
    expect(folding, `${CHANGED} case folding now maps other ASCII characters to non-ASCII ones`).toEqual(["K", "S", "k", "s"]);
    expect([kelvin, longS]).toEqual([true, true]);
  });
});

describe("re2js set DFA (read by trigger-regex-set.ts)", () => {
  const compiledSet = (patterns: readonly string[], maxMemory: number): RE2Set => {
    const set = new RE2Set(RE2Set.UNANCHORED, RE2JS.CASE_INSENSITIVE, maxMemory);
    for (const pattern of patterns) set.add(pattern);
    set.compile();
    return set;
  };
  const dfaOf = (set: RE2Set): { matchSet?: unknown } => (set as unknown as { dfa: { matchSet?: unknown } }).dfa;

  it("answers `match` with what the instance's `dfa.matchSet` returns, looked up on every call", () => {
    // Prepare
    const set = compiledSet(["\\d{3,}", "[a-z]+@[a-z]+"], 2 * 1024 * 1024);
    const dfa = dfaOf(set);
    const answer = [1];
    const matchSet = dfa.matchSet;
    dfa.matchSet = () => answer;

    // Act
    const matched = set.match("nothing to see");

    // Assess
    expect(typeof matchSet, `${CHANGED} a compiled RE2Set has no dfa.matchSet function`).toBe("function");
    expect(matched, `${CHANGED} RE2Set.match no longer returns dfa.matchSet's answer as it is`).toBe(answer);
  });

  it("has `dfa.matchSet` return null when the DFA gives up (the state cache thrashes)", () => {
    // Prepare
    let state = 3;
    const random = (): number => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state / 4294967296;
    };
    const letters = Array.from({ length: 16_000 }, () => "abcdefgh"[Math.floor(random() * 8)]).join("");
    const set = compiledSet(["[a-h]*[a-c][a-h]{18}[0-9]", "\\d{3,}"], 2 * 1024 * 1024);
    const dfa = dfaOf(set) as { matchSet: (...args: unknown[]) => unknown };
    const original = dfa.matchSet.bind(dfa);
    const answers: unknown[] = [];
    dfa.matchSet = (...args: unknown[]) => {
      const answer = original(...args);
      answers.push(answer);
      return answer;
    };

    // Act
    const matched = set.match(`${letters}a${"h".repeat(18)}5 123`);

    // Assess
    expect(answers, `${CHANGED} dfa.matchSet no longer returns null when the DFA gives up`).toEqual([null]);
    expect(matched, "re2js's own NFA fallback still answers").toEqual([0, 1]);
  });
});
