/**
 * Aho–Corasick automaton: which of many literals occur in a text, in one pass over the text.
 * Used for the required literals of every PATTERN trigger of a catalogue at once, so a message
 * costs one scan instead of one `includes` per literal.
 *
 * The goto/failure functions are flattened into a dense transition table (a DFA), so the scan is
 * one table lookup per UTF-16 code unit. The alphabet is compressed to the characters that occur in
 * some literal (class 0 = any other character, which always leads back to the root).
 *
 * Memory is bounded: only the first `prefixLength` characters of a literal go into the trie (the
 * length is halved until the table fits `maxTableEntries`); a longer literal whose prefix occurs is
 * confirmed with `includes` after the scan, so results stay exact.
 */

export interface LiteralAutomatonOptions {
  /** Characters of each literal that enter the trie; longer literals are confirmed separately. */
  readonly prefixLength?: number;
  /** Upper bound on states × character classes of the transition table. */
  readonly maxTableEntries?: number;
}

const DEFAULT_PREFIX_LENGTH = 24;
const DEFAULT_MAX_TABLE_ENTRIES = 1 << 20;

export class LiteralAutomaton {
  readonly literals: readonly string[];
  /** Characters per literal actually indexed (after fitting the table budget). */
  readonly prefixLength: number;
  readonly stateCount: number;
  private readonly asciiClass = new Uint8Array(128);
  private readonly wideClass = new Map<number, number>();
  private readonly classCount: number;
  private readonly delta: Int32Array;
  /** Per state: the state itself when a literal ends there, else its nearest such suffix, else -1. */
  private readonly report: Int32Array;
  /** Per state with literals: the next proper suffix state with literals, or -1. */
  private readonly dictionaryLink: Int32Array;
  /** Literal ids ending at a state, as ranges into `outputIds`. */
  private readonly outputStart: Int32Array;
  private readonly outputIds: Int32Array;
  /** Ids of the empty literals (they occur in every text). */
  private readonly alwaysFound: readonly number[];
  /** Literals longer than the indexed prefix: found only when `includes` confirms them. */
  private readonly truncated: Uint8Array;
  private readonly seen: Uint32Array;
  private epoch = 0;

  constructor(literals: readonly string[], options: LiteralAutomatonOptions = {}) {
    this.literals = [...literals];
    const maxEntries = options.maxTableEntries ?? DEFAULT_MAX_TABLE_ENTRIES;
    let prefixLength = Math.max(1, options.prefixLength ?? DEFAULT_PREFIX_LENGTH);

    // Character classes: 0 is "no literal contains this character".
    const wideClass = this.wideClass;
    let classCount = 1;
    for (const literal of this.literals) {
      for (let i = 0; i < literal.length; i++) {
        const code = literal.charCodeAt(i);
        if (code < 128) {
          if (this.asciiClass[code] === 0) this.asciiClass[code] = classCount++;
        } else if (!wideClass.has(code)) {
          wideClass.set(code, classCount++);
        }
      }
    }
    this.classCount = classCount;

    let trie = buildTrie(this.literals, prefixLength, (code) => this.classOf(code));
    while (trie.nodeCount * classCount > maxEntries && prefixLength > 1) {
      prefixLength = Math.max(1, prefixLength >> 1);
      trie = buildTrie(this.literals, prefixLength, (code) => this.classOf(code));
    }
    this.prefixLength = prefixLength;
    this.stateCount = trie.nodeCount;
    this.alwaysFound = this.literals.flatMap((literal, id) => (literal.length === 0 ? [id] : []));
    this.truncated = Uint8Array.from(this.literals, (literal) => (literal.length > prefixLength ? 1 : 0));

    const states = trie.nodeCount;
    const delta = new Int32Array(states * classCount);
    const fail = new Int32Array(states);
    const report = new Int32Array(states).fill(-1);
    const dictionaryLink = new Int32Array(states).fill(-1);
    const outputStart = new Int32Array(states + 1);
    for (const [state, ids] of trie.outputs) outputStart[state + 1] = ids.length;
    for (let state = 0; state < states; state++) {
      outputStart[state + 1] = (outputStart[state + 1] as number) + (outputStart[state] as number);
    }
    const outputIds = new Int32Array(outputStart[states] as number);
    for (const [state, ids] of trie.outputs) outputIds.set(ids, outputStart[state] as number);
    const hasOutput = (state: number): boolean => (outputStart[state + 1] as number) > (outputStart[state] as number);

    // Breadth-first, so a state's failure target (shallower) is complete before the state itself:
    // a state's row is its failure target's row, overwritten by its own edges.
    const queue = new Int32Array(states);
    let tail = 0;
    for (let edge = trie.firstChild[0] as number; edge >= 0; edge = trie.nextSibling[edge] as number) {
      const child = trie.edgeTarget[edge] as number;
      delta[trie.edgeClass[edge] as number] = child;
      queue[tail++] = child;
    }
    for (let head = 0; head < tail; head++) {
      const state = queue[head] as number;
      const failure = fail[state] as number;
      dictionaryLink[state] = hasOutput(failure) ? failure : (dictionaryLink[failure] as number);
      report[state] = hasOutput(state) ? state : (dictionaryLink[state] as number);
      const row = state * classCount;
      delta.copyWithin(row, failure * classCount, failure * classCount + classCount);
      for (let edge = trie.firstChild[state] as number; edge >= 0; edge = trie.nextSibling[edge] as number) {
        const child = trie.edgeTarget[edge] as number;
        const cls = trie.edgeClass[edge] as number;
        fail[child] = delta[failure * classCount + cls] as number;
        delta[row + cls] = child;
        queue[tail++] = child;
      }
    }

    this.delta = delta;
    this.report = report;
    this.dictionaryLink = dictionaryLink;
    this.outputStart = outputStart;
    this.outputIds = outputIds;
    this.seen = new Uint32Array(states);
  }

  /** Ids (indices into `literals`) of the literals occurring in `text`, each once, in no set order. */
  find(text: string): number[] {
    const found = [...this.alwaysFound];
    if (this.stateCount === 1) return found;
    const epoch = this.nextEpoch();
    const { asciiClass, wideClass, delta, report, dictionaryLink, seen, classCount } = this;
    const hasWide = wideClass.size > 0;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      const cls = code < 128 ? (asciiClass[code] as number) : hasWide ? (wideClass.get(code) ?? 0) : 0;
      state = delta[state * classCount + cls] as number;
      // A state already seen in this scan had its whole suffix chain reported then.
      let out = report[state] as number;
      while (out >= 0 && seen[out] !== epoch) {
        seen[out] = epoch;
        this.collect(out, text, found);
        out = dictionaryLink[out] as number;
      }
    }
    return found;
  }

  private collect(state: number, text: string, found: number[]): void {
    const end = this.outputStart[state + 1] as number;
    for (let k = this.outputStart[state] as number; k < end; k++) {
      const id = this.outputIds[k] as number;
      if (this.truncated[id] === 0 || text.includes(this.literals[id] as string)) found.push(id);
    }
  }

  private classOf(code: number): number {
    return code < 128 ? (this.asciiClass[code] as number) : (this.wideClass.get(code) ?? 0);
  }

  private nextEpoch(): number {
    if (this.epoch === 0xffffffff) {
      this.seen.fill(0);
      this.epoch = 0;
    }
    this.epoch += 1;
    return this.epoch;
  }
}

interface Trie {
  readonly nodeCount: number;
  /** Edges as linked lists per node: first edge of a node (-1: none), next edge of the same node. */
  readonly firstChild: readonly number[];
  readonly nextSibling: readonly number[];
  readonly edgeClass: readonly number[];
  readonly edgeTarget: readonly number[];
  readonly outputs: ReadonlyMap<number, readonly number[]>;
}

function buildTrie(literals: readonly string[], prefixLength: number, classOf: (code: number) => number): Trie {
  const firstChild = [-1];
  const nextSibling: number[] = [];
  const edgeClass: number[] = [];
  const edgeTarget: number[] = [];
  const outputs = new Map<number, number[]>();
  literals.forEach((literal, id) => {
    if (literal.length === 0) return;
    let node = 0;
    const length = Math.min(literal.length, prefixLength);
    for (let i = 0; i < length; i++) {
      const cls = classOf(literal.charCodeAt(i));
      let edge = firstChild[node] as number;
      while (edge >= 0 && edgeClass[edge] !== cls) edge = nextSibling[edge] as number;
      if (edge < 0) {
        edge = edgeClass.length;
        edgeClass.push(cls);
        edgeTarget.push(firstChild.length);
        nextSibling.push(firstChild[node] as number);
        firstChild[node] = edge;
        firstChild.push(-1);
      }
      node = edgeTarget[edge] as number;
    }
    const ids = outputs.get(node);
    if (ids === undefined) outputs.set(node, [id]);
    else ids.push(id);
  });
  return { nodeCount: firstChild.length, firstChild, nextSibling, edgeClass, edgeTarget, outputs };
}
