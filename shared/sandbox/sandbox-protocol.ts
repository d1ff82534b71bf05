import type { MessagePort } from "node:worker_threads";

/**
 * Messages between the host (sandbox-worker-handle.ts, host-call-bridge.ts) and
 * sandbox-worker.mjs. The worker is plain JavaScript, so these types are the only written-down
 * contract: change both sides together.
 *
 * Host calls (vance.tool …) look synchronous to the guest: the worker posts a `hostCall` on
 * its parentPort and blocks in Atomics.wait on `WorkerInit.replySignal`; the host runs the
 * host function on the main thread, posts a `HostReply` on `WorkerInit.replyPort` and then
 * stores 1 + notifies the signal; the worker takes the reply with receiveMessageOnPort.
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
  /** Guest paths ("vance.tool") of the host functions; a hostCall names one by index. */
  hostFunctions?: string[];
  /** How long the guest waits for one host reply (never past the deadline). */
  hostCallTimeoutMs: number;
  maxHostCalls: number;
  /** Cap on one call's arguments serialized as JSON (UTF-8 bytes); checked in the worker. */
  maxHostArgsBytes: number;
  /** Report QuickJS' memory counters at the end of the evaluation (tests, benchmarks). */
  collectStats?: boolean;
}

export type HostToWorker =
  { type: "prelude"; id: string; source: string } | { type: "evaluate"; id: number; request: WorkerEvaluateRequest };

/**
 * The answer to one host call, as the guest bridge decodes it: "u" (undefined), "v" + JSON
 * text of the value, or "e" + JSON text of `{ code, message }` (already sanitized).
 */
export interface HostReply {
  callId: number;
  reply: string;
}

export type WorkerFailureKind = "guest" | "timeout" | "memory" | "output" | "internal";

export interface WorkerFailure {
  kind: WorkerFailureKind;
  message: string;
  /** Guest error name (SyntaxError, TypeError, …) for kind "guest". */
  name?: string;
  /** 1-based line in the evaluated code (or what the guest reported as lineNumber). */
  line?: number;
}

export interface WorkerStats {
  hostCalls: number;
  /** Size of the worker's wasm memory (all QuickJS heaps of this worker) after the evaluation. */
  wasmMemoryBytes: number;
  /** QuickJS' JSMemoryUsage counters (malloc_count, obj_count, str_count, …) when requested. */
  quickjs?: Record<string, number>;
}

export type WorkerToHost =
  | { type: "ready" }
  | { type: "hostCall"; id: number; callId: number; index: number; argsJson: string }
  | { type: "result"; id: number; ok: true; json: string | undefined; durationMs: number; stats?: WorkerStats; retire?: boolean }
  | { type: "result"; id: number; ok: false; error: WorkerFailure; durationMs?: number; stats?: WorkerStats; retire?: boolean };

export interface WorkerInit {
  preludes: Record<string, string>;
  /** Hard cap on the worker's wasm memory (all QuickJS heaps of the worker). */
  memoryCapBytes: number;
  /** After an evaluation leaves the wasm memory larger than this, the worker asks to be replaced. */
  memoryRetainBytes: number;
  /** Where host replies arrive; read synchronously with receiveMessageOnPort. */
  replyPort: MessagePort;
  /** Int32Array(1) over this buffer: the pool stores 1 and notifies after posting a reply. */
  replySignal: SharedArrayBuffer;
}
