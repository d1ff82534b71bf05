import { LRUCache } from "lru-cache";

/**
 * Memory of re2js's lazy DFAs, bounded twice (docs/decisions.md, "Trigger memory and time"):
 *
 * - Per DFA: re2js keeps a byte budget per DFA (`maxMem`, default 8 MiB, counted with its own cost
 *   model: 150 bytes per state plus 8 per NFA pc and per transition slot) and clears its state cache
 *   when the budget runs out. We lower that budget to `perDfaBytes` right after compiling. Measured
 *   (re2js 2.10, Node 20, 50 DFA-hostile patterns on a 16 KB message): the V8 heap the states
 *   occupy is 1.05–1.15× what the cost model counts, so the cap is a real one.
 * - For all DFAs of the process together: a ledger (an LRU by bytes) that is told, after every
 *   run, what each DFA now uses. When the sum passes `totalBytes` the least recently run DFAs are
 *   cleared (their states dropped; the pattern stays compiled and simply rebuilds states the next
 *   time it runs). This holds for DFAs of patterns the pattern cache has evicted but an index
 *   still uses, and for the set DFAs (TriggerRegexSet), which no cache owns.
 *
 * Matching is synchronous between two ledger updates, so the sum can pass the total by at most one
 * DFA's cap during a run. Reads re2js internals (pinned by trigger-re2js-contract.test.ts); when
 * they are missing nothing is capped and matching still answers correctly.
 */

/** The fields of re2js's (internal) DFA class read and written here. */
export interface Re2jsDfa {
  maxMem: number;
  stateBudget: number;
  memBudget: number;
  clearCache(): void;
}

export function isRe2jsDfa(value: unknown): value is Re2jsDfa {
  if (typeof value !== "object" || value === null) return false;
  const dfa = value as Partial<Re2jsDfa>;
  return typeof dfa.maxMem === "number" && typeof dfa.stateBudget === "number" && typeof dfa.memBudget === "number" && typeof dfa.clearCache === "function";
}

/** Bytes (re2js's cost model) the DFA's states and tables hold now. */
export function dfaBytesInUse(dfa: Re2jsDfa): number {
  return Math.max(0, dfa.stateBudget - dfa.memBudget);
}

/** Lowers the DFA's own budget (never raises it); states already built stay counted. */
export function capDfa(dfa: Re2jsDfa, bytes: number): void {
  if (dfa.stateBudget <= bytes) return;
  const used = dfaBytesInUse(dfa);
  dfa.maxMem = bytes;
  dfa.stateBudget = bytes;
  dfa.memBudget = Math.max(0, bytes - used);
  if (used > bytes) dfa.clearCache();
}

export const DEFAULT_DFA_BYTES_PER_PATTERN = 256 * 1024;
export const DEFAULT_DFA_BYTES_TOTAL = 48 * 1024 * 1024;

export interface DfaMemoryLimits {
  /** Cap of one DFA (a pattern's or a set's), in re2js cost-model bytes. */
  readonly perDfaBytes: number;
  /** Cap of all DFAs the ledger knows together. */
  readonly totalBytes: number;
}

export class DfaMemoryLedger {
  readonly limits: DfaMemoryLimits;
  private readonly live: LRUCache<Re2jsDfa, Re2jsDfa>;

  constructor(limits: Partial<DfaMemoryLimits> = {}) {
    const perDfaBytes = limits.perDfaBytes ?? DEFAULT_DFA_BYTES_PER_PATTERN;
    const totalBytes = Math.max(limits.totalBytes ?? DEFAULT_DFA_BYTES_TOTAL, perDfaBytes);
    this.limits = { perDfaBytes, totalBytes };
    this.live = new LRUCache<Re2jsDfa, Re2jsDfa>({
      maxSize: totalBytes,
      // 1 for an empty DFA: lru-cache wants a positive size; a few bytes of slack do not matter.
      sizeCalculation: (dfa) => Math.max(1, dfaBytesInUse(dfa)),
      dispose: (dfa, _key, reason) => {
        // Evicted for room (or dropped by clear): free its states. Re-sizing the same DFA is a
        // `set` with the same value, which lru-cache does not dispose.
        if (reason === "evict" || reason === "delete") dfa.clearCache();
      },
    });
  }

  /** Caps a new DFA (at `bytes`, at most the total; default perDfaBytes); call once, before its first run. */
  adopt(dfa: Re2jsDfa, bytes = this.limits.perDfaBytes): void {
    capDfa(dfa, Math.min(bytes, this.limits.totalBytes));
  }

  /** After a run of `dfa`: records its size now and clears the least recently run DFAs past the total. */
  record(dfa: Re2jsDfa): void {
    this.live.set(dfa, dfa);
  }

  /** The DFA's owner is gone (evicted from the pattern cache): drop its states now. */
  forget(dfa: Re2jsDfa): void {
    if (!this.live.delete(dfa)) dfa.clearCache();
  }

  /** Bytes (cost model) held by the DFAs the ledger knows. */
  get bytesInUse(): number {
    return this.live.calculatedSize;
  }

  /** DFAs the ledger currently keeps states for. */
  get dfaCount(): number {
    return this.live.size;
  }

  /** Drops every DFA's states (tests, and a caller that wants the memory back at once). */
  clear(): void {
    this.live.clear();
  }
}

/** The ledger of the process, used when none is passed. */
export const sharedDfaMemoryLedger = new DfaMemoryLedger();
