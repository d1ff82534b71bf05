import type { TriggerTimeBudget } from "./trigger-time-budget.js";
import { CANDIDATE_FIRED, CANDIDATE_OPEN, type CandidateMarks } from "./trigger-candidate-marks.js";
import { InvalidTriggerPattern } from "../skill-errors.js";
import { memoizedRequiredLiterals, type RequiredLiterals } from "./pattern-prefilter.js";
import { mayHoldMatch, messageCharsOf, type MessageChars, type RequiredChars } from "./pattern-required-chars.js";
import {
  compileTriggerPattern,
  type CompiledTriggerPattern,
  type TriggerInput,
  type TriggerPatternCache,
} from "./skill-trigger-pattern.js";
import { LiteralAutomaton } from "./trigger-literal-automaton.js";
import { TriggerRegexSet } from "./trigger-regex-set.js";
import { memoizedUnkeyedFacts, type UnkeyedPatternFacts } from "./unkeyed-pattern-facts.js";

/** Patterns with larger programs run alone: in a set their DFA states would multiply the others'. */
const MAX_SET_MEMBER_PROGRAM = 200;
const MAX_SET_PATTERNS = 64;
const MAX_SET_PROGRAM = 2000;

/** A pattern that failed to compile: it never fires (the parser refused it at load already). */
const UNUSABLE = "unusable";

/** A PATTERN trigger of the candidate at position `owner`. */
export interface PatternTriggerEntry {
  readonly owner: number;
  readonly pattern: string;
}

type LiteralTree =
  { readonly kind: "literal"; readonly id: number } | { readonly kind: "all" | "any"; readonly of: readonly LiteralTree[] };

interface PatternGroup {
  /** Compiled when a message first leaves two or more members that may match. */
  set: TriggerRegexSet | undefined;
  /** Pattern ids, in the set's order. */
  readonly members: readonly number[];
}

/**
 * PATTERN triggers (spec §4a) of many candidates, arranged so that a message costs few regex runs
 * while every answer stays the one `CompiledTriggerPattern.find` gives:
 *
 * - Required literals (the prefilter trees of pattern-prefilter.ts) of all patterns are found
 *   in one Aho–Corasick pass over the message. A pattern is looked at only when one of its "key"
 *   literals occurs: for an AND the most selective child is enough to rule the pattern out (any
 *   match contains it), for an OR every alternative is needed. Only then is its tree evaluated, and
 *   only when the tree holds does its regex run.
 * - Patterns without a provable literal are ruled out by characters instead: each comes with
 *   classes every match holds a character of (pattern-required-chars.ts), checked against the
 *   characters of the message. Those that remain run together, in one lazy-DFA pass per group
 *   (TriggerRegexSet); patterns with big programs, a group with one member left, or a group whose
 *   DFA gave up, run one by one.
 * - Identical pattern texts are evaluated once; no regex runs for candidates no longer open.
 * - Nothing is compiled when the index is built: a keyed pattern is compiled the first time its
 *   literals let it run, an unkeyed one the first time the message's characters do, a group's set
 *   the first time two of its members remain. With literals and unkeyed facts from the level
 *   snapshot, a cold instance with thousands of skills compiles only the few patterns its messages
 *   reach, and loads no regex engine for a message none can match (issue 27: compiling every
 *   pattern was the largest cost of a cold first turn).
 */
export class PatternTriggerIndex {
  /** Pattern texts by id; `compiled[id]` is filled on first use. */
  private readonly texts: string[] = [];
  private readonly compiled: (CompiledTriggerPattern | typeof UNUSABLE | undefined)[] = [];
  private readonly cache: TriggerPatternCache;
  private readonly owners: number[][] = [];
  private readonly prefilters: (LiteralTree | undefined)[] = [];
  /** Literal id → the patterns keyed by it. */
  private readonly keyedPatterns: number[][] = [];
  private readonly automaton: LiteralAutomaton;
  private readonly groups: PatternGroup[] = [];
  private readonly loners: number[] = [];
  /** Of each unkeyed pattern: classes a match holds a character of. */
  private readonly requiredChars: (readonly RequiredChars[] | undefined)[] = [];
  /** Per-message scratch: literal id → found, pattern id → already looked at. */
  private readonly present: Uint8Array;
  private readonly considered: Uint8Array;
  /** Patterns the time budget kept from running in the current message (scratch, like `considered`). */
  private readonly cut: Uint8Array;
  private budget: TriggerTimeBudget | undefined;
  private lastHaystack: string | undefined;
  private lastFound: readonly number[] = [];
  private lastLowered: string | undefined;
  private lastChars: MessageChars | undefined;

  constructor(entries: readonly PatternTriggerEntry[], cache: TriggerPatternCache) {
    this.cache = cache;
    const patternIds = new Map<string, number>();
    for (const { owner, pattern } of entries) {
      let id = patternIds.get(pattern);
      if (id === undefined) {
        id = this.texts.length;
        patternIds.set(pattern, id);
        this.texts.push(pattern);
        this.compiled.push(undefined);
        this.owners.push([]);
      }
      const owners = this.owners[id] as number[];
      if (!owners.includes(owner)) owners.push(owner);
    }

    const literalIds = new Map<string, number>();
    const literalTexts: string[] = [];
    const idOf = (text: string): number => {
      let id = literalIds.get(text);
      if (id === undefined) {
        id = literalTexts.length;
        literalIds.set(text, id);
        literalTexts.push(text);
        this.keyedPatterns.push([]);
      }
      return id;
    };
    const unkeyed: number[] = [];
    for (let pattern = 0; pattern < this.texts.length; pattern++) {
      const literals = this.prefilterOf(this.texts[pattern] as string);
      const tree = literals === undefined ? undefined : literalTree(literals, idOf);
      const keys = tree === undefined ? undefined : keyLiterals(tree, literalTexts);
      // Without keys the tree cannot rule anything out; the regex alone decides (as find does).
      this.prefilters.push(keys === undefined ? undefined : tree);
      if (keys === undefined) unkeyed.push(pattern);
      else for (const id of keys) (this.keyedPatterns[id] as number[]).push(pattern);
    }
    this.automaton = new LiteralAutomaton(literalTexts);
    const sizes = new Map<number, number>();
    for (const pattern of unkeyed) {
      const facts = this.unkeyedFactsOf(this.texts[pattern] as string);
      if (facts === undefined) this.compiled[pattern] = UNUSABLE;
      else {
        this.requiredChars[pattern] = facts.chars;
        sizes.set(pattern, facts.programSize);
      }
    }
    this.groupUnkeyedPatterns(sizes);
    this.present = new Uint8Array(this.keyedPatterns.length);
    this.considered = new Uint8Array(this.texts.length);
    this.cut = new Uint8Array(this.texts.length);
  }

  /** The pattern's required literals: from its compiled form when the cache has one, else memoized per text. */
  private prefilterOf(text: string): RequiredLiterals | undefined {
    const cached = this.cache.peek(text);
    return cached !== undefined && !(cached instanceof InvalidTriggerPattern) ? cached.prefilter : memoizedRequiredLiterals(text);
  }

  /** Required characters and program size of an unkeyed pattern (from the level snapshot, or computed); undefined when it cannot compile. */
  private unkeyedFactsOf(text: string): UnkeyedPatternFacts | undefined {
    return this.cache.peek(text) instanceof InvalidTriggerPattern ? undefined : memoizedUnkeyedFacts(text, this.cache);
  }

  /** The compiled pattern, compiled now if it was not; undefined for one that cannot compile. */
  private compiledAt(pattern: number): CompiledTriggerPattern | undefined {
    let compiled = this.compiled[pattern];
    if (compiled === undefined) {
      try {
        compiled = compileTriggerPattern(this.texts[pattern] as string, this.cache);
      } catch {
        compiled = UNUSABLE; // rejected at load already; such a trigger never fires
      }
      this.compiled[pattern] = compiled;
    }
    return compiled === UNUSABLE ? undefined : compiled;
  }

  /** Marks as fired every open owner of a pattern found in the message. */
  match(input: TriggerInput, marks: CandidateMarks, budget?: TriggerTimeBudget): void {
    if (this.texts.length === 0) return;
    this.budget = budget;
    try {
      this.matchWithin(input, marks);
    } finally {
      this.budget = undefined;
    }
    if (budget?.spent()) {
      // What the budget cut: its open owners are reported, not silently left unfired.
      this.cut.forEach((cut, pattern) => {
        if (cut === 1) for (const owner of this.owners[pattern] as number[]) if (marks[owner] === CANDIDATE_OPEN) budget.skipped.add(owner);
      });
      this.cut.fill(0);
    }
  }

  private matchWithin(input: TriggerInput, marks: CandidateMarks): void {
    // The same message again (the ledger's second pass) finds the same literals.
    if (this.lastHaystack !== input.haystack) {
      this.lastFound = this.automaton.find(input.haystack);
      this.lastHaystack = input.haystack;
    }
    const found = this.lastFound;
    // Scratch kept across messages (matching is synchronous), cleared again before returning.
    const { present, considered } = this;
    for (const id of found) present[id] = 1;
    try {
      this.runKeyed(found, input, marks);
    } finally {
      for (const id of found) present[id] = 0;
      considered.fill(0);
    }
    if (this.groups.length === 0 && this.loners.length === 0) return;
    if (this.lastLowered !== input.lowered) {
      this.lastChars = messageCharsOf(input.lowered);
      this.lastLowered = input.lowered;
    }
    const chars = this.lastChars as MessageChars;
    for (const group of this.groups) {
      const { members } = group;
      // Patterns whose required characters the message lacks are decided (no match), not cut by the budget.
      const remaining = members.filter((pattern) => this.mayFire(pattern, marks, chars));
      if (remaining.length === 0) continue;
      if (this.budget?.spent()) {
        for (const pattern of remaining) this.cut[pattern] = 1;
        continue;
      }
      if (remaining.length === 1 && group.set === undefined) {
        this.runAlone(remaining[0] as number, input, marks);
        continue;
      }
      group.set ??= new TriggerRegexSet(members.map((pattern) => this.texts[pattern] as string));
      const matched = group.set.match(input.lowered);
      if (matched === undefined) {
        for (const pattern of remaining) if (this.isOpen(pattern, marks)) this.runAlone(pattern, input, marks);
      } else {
        for (const index of matched) this.fire(members[index] as number, marks);
      }
    }
    for (const pattern of this.loners) if (this.mayFire(pattern, marks, chars)) this.runAlone(pattern, input, marks);
  }

  /** An unkeyed pattern with an open owner, whose required characters are all in the message. */
  private mayFire(pattern: number, marks: CandidateMarks, chars: MessageChars): boolean {
    return this.isOpen(pattern, marks) && mayHoldMatch(this.requiredChars[pattern] as readonly RequiredChars[], chars);
  }

  /** Evaluates the patterns keyed by the found literals (each once), with `present` set for them. */
  private runKeyed(found: readonly number[], input: TriggerInput, marks: CandidateMarks): void {
    const { present, considered } = this;
    for (const id of found) {
      for (const pattern of this.keyedPatterns[id] as number[]) {
        if (considered[pattern] === 1) continue;
        considered[pattern] = 1;
        if (this.isOpen(pattern, marks) && holds(this.prefilters[pattern] as LiteralTree, present)) {
          this.runAlone(pattern, input, marks);
        }
      }
    }
  }

  /** Groups the unkeyed patterns (program sizes by id, in id order) as when sets were compiled at build; each set is now compiled on first use. */
  private groupUnkeyedPatterns(sizes: ReadonlyMap<number, number>): void {
    let members: number[] = [];
    let program = 0;
    const flush = (): void => {
      if (members.length === 1) this.loners.push(...members);
      else if (members.length > 1) this.groups.push({ set: undefined, members });
      members = [];
      program = 0;
    };
    for (const [id, size] of sizes) {
      if (size > MAX_SET_MEMBER_PROGRAM) {
        this.loners.push(id);
        continue;
      }
      if (members.length >= MAX_SET_PATTERNS || program + size > MAX_SET_PROGRAM) flush();
      members.push(id);
      program += size;
    }
    flush();
  }

  private runAlone(pattern: number, input: TriggerInput, marks: CandidateMarks): void {
    if (this.budget?.spent()) {
      this.cut[pattern] = 1;
      return;
    }
    if (this.compiledAt(pattern)?.findUnfiltered(input)) this.fire(pattern, marks);
  }

  private isOpen(pattern: number, marks: CandidateMarks): boolean {
    return (this.owners[pattern] as number[]).some((owner) => marks[owner] === CANDIDATE_OPEN);
  }

  private fire(pattern: number, marks: CandidateMarks): void {
    for (const owner of this.owners[pattern] as number[]) if (marks[owner] === CANDIDATE_OPEN) marks[owner] = CANDIDATE_FIRED;
  }
}

function literalTree(node: RequiredLiterals, idOf: (text: string) => number): LiteralTree {
  return node.kind === "literal"
    ? { kind: "literal", id: idOf(node.text) }
    : { kind: node.kind, of: node.of.map((child) => literalTree(child, idOf)) };
}

/**
 * Literals of which at least one occurs whenever the tree holds, or undefined when the tree can
 * hold without any (an empty AND). For an AND one child's keys suffice: the child with the fewest
 * keys, then the longest shortest key (longer literals are rarer in text), so that as few
 * patterns as possible are looked at per message.
 */
function keyLiterals(tree: LiteralTree, texts: readonly string[]): number[] | undefined {
  if (tree.kind === "literal") return [tree.id];
  if (tree.kind === "any") {
    // Every alternative's keys, each once, in order.
    const keys: number[] = [];
    for (const child of tree.of) {
      const childKeys = keyLiterals(child, texts);
      if (childKeys === undefined) return undefined;
      for (const id of childKeys) if (!keys.includes(id)) keys.push(id);
    }
    return keys;
  }
  let best: number[] | undefined;
  let bestShortest = 0;
  for (const child of tree.of) {
    const keys = keyLiterals(child, texts);
    if (keys === undefined) continue;
    let shortest = Number.POSITIVE_INFINITY;
    for (const id of keys) shortest = Math.min(shortest, (texts[id] as string).length);
    if (best === undefined || keys.length < best.length || (keys.length === best.length && shortest > bestShortest)) {
      best = keys;
      bestShortest = shortest;
    }
  }
  return best;
}

function holds(tree: LiteralTree, present: Uint8Array): boolean {
  switch (tree.kind) {
    case "literal":
      return present[tree.id] === 1;
    case "all":
      return tree.of.every((child) => holds(child, present));
    case "any":
      return tree.of.some((child) => holds(child, present));
  }
}
