/**
 * Messages between SandboxPool (host) and sandbox-worker.mjs. The worker is plain JavaScript,
 * so these types are the only written-down contract: change both sides together.
 *
 * Later host functions (vance.tool …) add a request/reply pair here: the worker posts a
 * `hostCall` while a guest promise is pending, the pool answers with `hostResult`, and the
 * worker resumes `executePendingJobs` under the same deadline.
 */

/** What the worker needs to run one evaluation; all limits already resolved by the pool. */
export interface WorkerEvaluateRequest {
  code: string;
  /** JSON object text; each own key becomes a guest global. */
  globalsJson?: string;
  prelude?: string;
  timeoutMs: number;
  memoryBytes: number;
  maxOutputBytes: number;
}

export type HostToWorker =
  | { type: "prelude"; id: string; source: string }
  | { type: "evaluate"; id: number; request: WorkerEvaluateRequest };

export type WorkerFailureKind = "guest" | "timeout" | "memory" | "output" | "internal";

export interface WorkerFailure {
  kind: WorkerFailureKind;
  message: string;
  /** Guest error name (SyntaxError, TypeError, …) for kind "guest". */
  name?: string;
  /** 1-based line in the evaluated code (or what the guest reported as lineNumber). */
  line?: number;
}

export type WorkerToHost =
  | { type: "ready" }
  | { type: "result"; id: number; ok: true; json: string | undefined; durationMs: number; retire?: boolean }
  | { type: "result"; id: number; ok: false; error: WorkerFailure; durationMs?: number; retire?: boolean };

export interface WorkerInit {
  preludes: Record<string, string>;
  /** Hard cap on the worker's wasm memory (all QuickJS heaps of the worker). */
  memoryCapBytes: number;
  /** After an evaluation leaves the wasm memory larger than this, the worker asks to be replaced. */
  memoryRetainBytes: number;
}
