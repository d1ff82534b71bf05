import type { Process } from "../processes/process.js";

export interface GuardEvaluation {
  /** The process as it was before the completion is written (its `guard` is set). */
  process: Process;
  turnId: string;
  /** The turn's output as stored (cut to the output cap). */
  output: string;
  final: boolean;
}

/** A guard may ask for another turn (`vance.guard.continueWith`), queued with sender `_guard`. */
export interface GuardVerdict {
  continueWith?: string | undefined;
}

/**
 * The completion guard hook of `turn.complete` (shooty). The sandboxed runner that executes
 * `guard inline` / `guard script` comes with the guard issue; until then the lane records the
 * output and asks this port, whose default says nothing.
 */
export interface GuardRunner {
  evaluate(evaluation: GuardEvaluation): Promise<GuardVerdict>;
}

export class NoopGuardRunner implements GuardRunner {
  async evaluate(): Promise<GuardVerdict> {
    return {};
  }
}
