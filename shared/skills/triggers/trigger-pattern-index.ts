import { CANDIDATE_FIRED, CANDIDATE_OPEN, type CandidateMarks } from "./trigger-candidate-marks.js";
import type { RequiredLiterals } from "./pattern-prefilter.js";
import {
  compileTriggerPattern,
  type CompiledTriggerPattern,
  type TriggerInput,
  type TriggerPatternCache,
} from "./skill-trigger-pattern.js";
import { LiteralAutomaton } from "./trigger-literal-automaton.js";
import { TriggerRegexSet } from "./trigger-regex-set.js";
import type { TriggerTurnBudget } from "./trigger-time-budget.js";

/** Patterns with larger programs run alone: in a set their DFA states would multiply the others'. */
const MAX_SET_MEMBER_PROGRAM = 200;
const MAX_SET_PATTERNS = 64;
const MAX_SET_PROGRAM = 2000;

/** A PATTERN trigger of the candidate at position `owner`. */
export interface PatternTriggerEntry {
  readonly owner: number;
  readonly pattern: string;
}

type LiteralTree =
  | { readonly kind: "literal"; readonly id: number }
  | { readonly kind: "all" | "any"; readonly of: readonly LiteralTree[] };

interface PatternGroup {
  readonly set: TriggerRegexSet;
  /** Pattern ids, in the set's order. */
  readonly members: readonly number[];
}

/** Per-message state of one match: literal id → found, pattern id → looked at / still undecided. */
interface MatchScratch {
  readonly present: Uint8Array;
  readonly considered: Uint8Array;
  readonly pending: Uint8Array;
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
 * - Patterns without a provable literal run together, in one lazy-DFA pass per group
 *   (TriggerRegexSet); patterns with big programs, or a group whose DFA gave up, run one by one.
 * - Identical pattern texts are evaluated once; no regex runs for candidates no longer open.
 *
 * The index keeps pattern texts, not compiled patterns: each regex run takes its compiled pattern
 * from the (byte-bounded) pattern cache, so what the cache evicts is really freed, whatever indexes
 * still list the pattern; a miss recompiles it, which the turn's time budget counts.
 *
 * Matching runs in steps of one regex run (`steps`): `match` runs them all at once, `matchWithin`
 * under a TriggerTurnBudget, yielding to the event loop between slices and stopping when the
 * budget is used up, with the owners it could not decide.
 */
export class PatternTriggerIndex {
  private readonly texts: string[] = [];
  private readonly owners: number[][] = [];
  private readonly prefilters: (LiteralTree | undefined)[] = [];
  /** Literal id → the patterns keyed by it. */
  private readonly keyedPatterns: number[][] = [];
  private readonly automaton: LiteralAutomaton;
  private readonly groups: PatternGroup[] = [];
  private readonly loners: number[] = [];
  /** Patterns every message has to decide by a regex run (group members and loners). */
  private readonly unkeyed: number[] = [];
  /** Scratch of the synchronous `match`, kept across messages (see MatchScratch). */
  private scratch: MatchScratch | undefined;

  constructor(
    entries: readonly PatternTriggerEntry[],
    private readonly cache: TriggerPatternCache,
  ) {
    const patternIds = new Map<string, number>();
    const compiledPatterns: CompiledTriggerPattern[] = [];
    for (const { owner, pattern } of entries) {
      let id = patternIds.get(pattern);
      if (id === undefined) {
        let compiled: CompiledTriggerPattern;
        try {
          compiled = compileTriggerPattern(pattern, cache);
        } catch {
          continue; // rejected at load already; such a trigger never fires
        }
        id = this.texts.length;
        patternIds.set(pattern, id);
        this.texts.push(pattern);
        compiledPatterns.push(compiled);
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
    compiledPatterns.forEach((compiled, pattern) => {
      const tree = compiled.prefilter === undefined ? undefined : literalTree(compiled.prefilter, idOf);
      const keys = tree === undefined ? undefined : keyLiterals(tree, literalTexts);
      // Without keys the tree cannot rule anything out; the regex alone decides (as find does).
      this.prefilters.push(keys === undefined ? undefined : tree);
      if (keys === undefined) this.unkeyed.push(pattern);
      else for (const id of keys) (this.keyedPatterns[id] as number[]).push(pattern);
    });
    this.automaton = new LiteralAutomaton(literalTexts);
    this.groupUnkeyedPatterns(compiledPatterns);
  }

  /** Marks as fired every open owner of a pattern found in the message. */
  match(input: TriggerInput, marks: CandidateMarks): void {
    if (this.texts.length === 0) return;
    // Synchronous: nothing else can use the kept scratch meanwhile (steps leave it cleared).
    const scratch = (this.scratch ??= this.newScratch());
    const found = this.begin(input, scratch);
    for (const step of this.steps(input, marks, scratch, found)) void step;
  }

  /**
   * `match` under a time budget: the positions of the owners left open whose patterns were not
   * all decided when the budget ran out (empty when everything ran). Scratch is per call: other
   * turns may match on the same index while this one waits for the event loop.
   */
  async matchWithin(input: TriggerInput, marks: CandidateMarks, budget: TriggerTurnBudget): Promise<number[]> {
    if (this.texts.length === 0) return [];
    const scratch = this.newScratch();
    // Before the first checkpoint: a budget used up at once still knows what it left undecided.
    const steps = this.steps(input, marks, scratch, this.begin(input, scratch));
    try {
      for (;;) {
        if (!(await budget.checkpoint())) return this.undecidedOwners(scratch, marks);
        if (steps.next().done === true) return [];
      }
    } finally {
      steps.return(undefined);
    }
  }

  private newScratch(): MatchScratch {
    return {
      present: new Uint8Array(this.keyedPatterns.length),
      considered: new Uint8Array(this.texts.length),
      pending: new Uint8Array(this.texts.length),
    };
  }

  /** The literal pass: sets `present` for the literals found and `pending` for every pattern left to decide. */
  private begin(input: TriggerInput, scratch: MatchScratch): readonly number[] {
    const found = this.automaton.find(input.haystack);
    const { present, pending } = scratch;
    for (const id of found) {
      present[id] = 1;
      for (const pattern of this.keyedPatterns[id] as number[]) pending[pattern] = 1;
    }
    for (const pattern of this.unkeyed) pending[pattern] = 1;
    return found;
  }

  /**
   * The work of one message after `begin`, one regex run per step. Leaves `scratch` cleared once
   * started (finished or returned early); a per-call scratch that never started is dropped anyway.
   */
  private *steps(input: TriggerInput, marks: CandidateMarks, scratch: MatchScratch, found: readonly number[]): Generator<void, void, undefined> {
    const { present, considered, pending } = scratch;
    try {
      for (const id of found) {
        for (const pattern of this.keyedPatterns[id] as number[]) {
          if (considered[pattern] === 1) continue;
          considered[pattern] = 1;
          if (this.isOpen(pattern, marks) && holds(this.prefilters[pattern] as LiteralTree, present)) {
            this.runAlone(pattern, input, marks);
            pending[pattern] = 0;
            yield;
          }
          pending[pattern] = 0;
        }
      }
      for (const { set, members } of this.groups) {
        if (members.some((pattern) => this.isOpen(pattern, marks))) {
          const matched = set.match(input.lowered);
          if (matched === undefined) {
            for (const pattern of members) {
              if (this.isOpen(pattern, marks)) {
                yield;
                this.runAlone(pattern, input, marks);
              }
              pending[pattern] = 0;
            }
          } else {
            for (const index of matched) this.fire(members[index] as number, marks);
          }
          for (const pattern of members) pending[pattern] = 0;
          yield;
        }
        for (const pattern of members) pending[pattern] = 0;
      }
      for (const pattern of this.loners) {
        if (this.isOpen(pattern, marks)) {
          this.runAlone(pattern, input, marks);
          pending[pattern] = 0;
          yield;
        }
        pending[pattern] = 0;
      }
    } finally {
      for (const id of found) present[id] = 0;
      considered.fill(0);
      pending.fill(0);
    }
  }

  private undecidedOwners(scratch: MatchScratch, marks: CandidateMarks): number[] {
    const owners = new Set<number>();
    scratch.pending.forEach((undecided, pattern) => {
      if (undecided === 1) for (const owner of this.owners[pattern] as number[]) if (marks[owner] === CANDIDATE_OPEN) owners.add(owner);
    });
    return [...owners].sort((a, b) => a - b);
  }

  private groupUnkeyedPatterns(compiled: readonly CompiledTriggerPattern[]): void {
    let members: number[] = [];
    let program = 0;
    const flush = (): void => {
      if (members.length === 1) this.loners.push(...members);
      else if (members.length > 1) {
        const texts = members.map((id) => this.texts[id] as string);
        this.groups.push({ set: new TriggerRegexSet(texts, undefined, this.cache.ledger), members });
      }
      members = [];
      program = 0;
    };
    for (const id of this.unkeyed) {
      const size = (compiled[id] as CompiledTriggerPattern).programSize;
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
    let compiled: CompiledTriggerPattern;
    try {
      compiled = compileTriggerPattern(this.texts[pattern] as string, this.cache);
    } catch {
      return; // compiled when the index was built; the same text cannot fail now
    }
    if (compiled.findUnfiltered(input)) this.fire(pattern, marks);
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
  const children = tree.of.map((child) => keyLiterals(child, texts));
  if (tree.kind === "any") {
    return children.includes(undefined) ? undefined : [...new Set(children.flatMap((keys) => keys ?? []))];
  }
  const shortest = (keys: number[]): number => Math.min(...keys.map((id) => (texts[id] as string).length));
  let best: number[] | undefined;
  for (const keys of children) {
    if (keys === undefined) continue;
    if (best === undefined || keys.length < best.length || (keys.length === best.length && shortest(keys) > shortest(best))) {
      best = keys;
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
