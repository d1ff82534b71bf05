import { RE2JS, RE2Set } from "re2js";
import { describe, expect, it } from "vitest";
import { RE2JS_PREFILTER_TYPE, re2jsPrefilterOf } from "../../shared/skills/triggers/pattern-prefilter.js";

/**
 * The trigger engine reads re2js internals (re2js 2.10.0, pinned in package.json): the prefilter
 * tree of an RE2 (pattern-prefilter.ts) and the set DFA of an RE2Set (trigger-regex-set.ts). Both
 * reads are defensive, so after a re2js upgrade that changes a shape nothing else fails: triggers
 * just get slower (no prefilter, no set). Renumbered node types would be worse: an OR read as an
 * AND demands every alternative and skips real matches. These tests fail first and say what moved.
 */
const CHANGED = "re2js internals read by the trigger engine changed; adapt pattern-prefilter.ts / trigger-regex-set.ts before upgrading:";

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
