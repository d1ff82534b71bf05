import type { Process } from "../processes/process.js";

export interface GuardEvaluation {
  /** The process as it was before the completion is written (its `guard` is set). */
  process: Process;
  turnId: string;
  /**
   * What the turn was asked to do (`vance.guard.task`): its user message, or the pending
   * messages it consumed. Empty when the lane did not record it.
   */
  task?: string | undefined;
  /** The turn's output as stored (cut to the output cap). */
  output: string;
  final: boolean;
}

/** A guard may ask for another turn (`vance.guard.continueWith`), queued with sender `_guard`. */
export interface GuardVerdict {
  continueWith?: string | undefined;
}

/**
 * The completion guard hook of `turn.complete` (shooty). shared/guards/sandboxed-guard-runner.ts
 * executes `guard inline` / `guard script`; functions that do not run the sandbox keep the
 * default, which says nothing.
 */
export interface GuardRunner {
  evaluate(evaluation: GuardEvaluation): Promise<GuardVerdict>;
}

export class NoopGuardRunner implements GuardRunner {
  async evaluate(): Promise<GuardVerdict> {
    return {};
  }
}
