import type { PendingHostCall } from "./pending-host-call.js";
import {
  SandboxAborted,
  SandboxError,
  SandboxMemoryExceeded,
  SandboxOutputTooLarge,
  SandboxTimeout,
  SandboxUnavailable,
} from "./sandbox-errors.js";
import type { ResolvedRequest } from "./sandbox-options.js";
import type { WorkerEvaluateRequest, WorkerFailure, WorkerStats, WorkerToHost } from "./sandbox-protocol.js";

/** Costs of one evaluation, from evaluateWithStats. */
export interface SandboxStats extends WorkerStats {
  durationMs: number;
}

export interface SandboxEvaluation {
  value: unknown;
  stats: SandboxStats;
}

/** One evaluation on its way through the pool: queued, then on one worker until it settles. */
export interface Job extends ResolvedRequest {
  id: number;
  /** Host calls in flight, aborted when the job ends however it ends. */
  pendingCalls: Map<number, PendingHostCall>;
  resolve: (evaluation: SandboxEvaluation) => void;
  reject: (error: Error) => void;
}

/**
 * A job that settles into `resolve`/`reject`. However it settles, it stops listening to
 * `signal` and aborts its host calls still in flight. `onAbort` runs when the signal fires.
 */
export const createJob = (
  id: number,
  resolved: ResolvedRequest,
  signal: AbortSignal | undefined,
  onAbort: (job: Job) => void,
  resolve: (evaluation: SandboxEvaluation) => void,
  reject: (error: Error) => void,
): Job => {
  const job: Job = {
    id,
    ...resolved,
    pendingCalls: new Map(),
    resolve: (evaluation) => {
      finish();
      resolve(evaluation);
    },
    reject: (error) => {
      finish();
      reject(error);
    },
  };
  const abort = (): void => onAbort(job);
  const finish = (): void => {
    signal?.removeEventListener("abort", abort);
    for (const call of job.pendingCalls.values()) call.abort(new SandboxAborted());
    job.pendingCalls.clear();
  };
  signal?.addEventListener("abort", abort, { once: true });
  return job;
};

const toError = (failure: WorkerFailure, request: WorkerEvaluateRequest): Error => {
  switch (failure.kind) {
    case "timeout":
      return new SandboxTimeout(request.timeoutMs);
    case "memory":
      return new SandboxMemoryExceeded(request.memoryBytes);
    case "output":
      return new SandboxOutputTooLarge(request.maxOutputBytes);
    case "guest":
      return new SandboxError(failure.message, failure.name, failure.line);
    default:
      return new SandboxUnavailable(`sandbox worker failed: ${failure.message}`);
  }
};

/** Settles the job with the worker's result: its JSON value, or the typed sandbox error. */
export const settleJob = (job: Job, result: Extract<WorkerToHost, { type: "result" }>): void => {
  if (result.ok) {
    try {
      const value: unknown = result.json === undefined ? undefined : JSON.parse(result.json);
      job.resolve({ value, stats: { durationMs: result.durationMs, hostCalls: 0, wasmMemoryBytes: 0, ...result.stats } });
    } catch (error) {
      job.reject(new SandboxUnavailable("sandbox result was not valid JSON", { cause: error }));
    }
  } else {
    job.reject(toError(result.error, job.request));
  }
};
