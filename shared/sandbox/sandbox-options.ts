import { availableParallelism } from "node:os";
import { hostPathProblem, type HostFunction } from "./host-call.js";
import { SandboxUnavailable } from "./sandbox-errors.js";
import type { WorkerEvaluateRequest } from "./sandbox-protocol.js";

/** One evaluation of untrusted JavaScript. The completion value of `code` is the result. */
export interface SandboxRequest {
  code: string;
  /** JSON data; each key becomes a guest global. Never code. */
  globals?: Record<string, unknown>;
  /** The same as `globals`, already serialized by the caller (a JSON object text); wins over `globals`. */
  globalsJson?: string;
  /** Id of a trusted script registered with registerPrelude, run before `code` in the same fresh context. */
  prelude?: string;
  timeoutMs?: number;
  /**
   * QuickJS' setMemoryLimit (at least 1 MiB). This wasm build cannot measure allocation sizes,
   * so it bounds each single allocation and the number of live allocations (about one per 8
   * bytes of limit), not total bytes; the worker's wasm memory cap bounds the total.
   */
  memoryBytes?: number;
  /** Cap on the result serialized as JSON (UTF-8 bytes). */
  maxOutputBytes?: number;
  /**
   * Host functions by guest path ("vance.tool", "vance.workspace.read"). The guest calls them
   * synchronously; they run on this (main) thread and may return promises. Intermediate
   * objects are created in the guest (or extend a same-named JSON global).
   */
  hostFunctions?: Record<string, HostFunction>;
  /** How long one host call may take (never past the evaluation deadline, which keeps running). */
  hostCallTimeoutMs?: number;
  maxHostCalls?: number;
  /** Caps on one call's arguments and result serialized as JSON (UTF-8 bytes). */
  maxHostArgsBytes?: number;
  maxHostResultBytes?: number;
  /** Nesting level handed to host functions (HostCallContext.depth); deeper work is served first. */
  depth?: number;
  /** Cancels the evaluation (queued or running: the running worker is replaced). */
  signal?: AbortSignal;
  /** Sees every host function failure before the guest gets its sanitized version (for logs). */
  onHostError?: (path: string, error: unknown) => void;
  /**
   * Whom the work is for (the tenant): the pool serves keys in turn, so one tenant's 40 slow
   * renders delay another tenant's preview by one evaluation per worker, not by all 40. Work
   * without a key shares one anonymous turn.
   */
  fairnessKey?: string | undefined;
}

export interface SandboxPoolOptions {
  /** Worker threads kept warm. Default: min(2, available cores). */
  size?: number;
  /** Per-evaluation defaults, each overridable per request. */
  timeoutMs?: number;
  memoryBytes?: number;
  maxOutputBytes?: number;
  /** How long past its deadline a worker may stay busy before it is terminated. */
  watchdogGraceMs?: number;
  /** Native stack of each worker; deep guest recursion needs far more than the main thread's. */
  workerStackSizeMb?: number;
  /**
   * Hard cap on each worker's QuickJS (wasm) memory. `memoryBytes` maps to QuickJS'
   * setMemoryLimit, which this build enforces only approximately (see sandbox-worker.mjs);
   * this cap is what actually bounds a memory bomb. A worker left above
   * `workerMemoryRetainBytes` after an evaluation is replaced, since wasm memory never shrinks.
   */
  workerMemoryCapBytes?: number;
  workerMemoryRetainBytes?: number;
  /** Where sandbox-worker.mjs lives; override when bundling puts it elsewhere. */
  workerUrl?: URL;
  /** Per-request defaults for host calls. */
  hostCallTimeoutMs?: number;
  maxHostCalls?: number;
  maxHostArgsBytes?: number;
  maxHostResultBytes?: number;
  /**
   * Upper bound on worker threads. A worker blocked in a host call does not count against
   * `size`, so nested evaluations (a tool running a script from inside a script) get another
   * worker instead of deadlocking behind their caller. Default: 4 × size, enough for the
   * default re-entrancy depth of 3 below every warm worker.
   */
  maxWorkers?: number;
  /** How long a worker beyond `size` may stay idle before it is stopped. */
  extraWorkerIdleMs?: number;
}

const DEFAULTS = {
  timeoutMs: 1_000,
  memoryBytes: 32 * 1024 * 1024,
  maxOutputBytes: 1024 * 1024,
  watchdogGraceMs: 250,
  workerStackSizeMb: 16,
  workerMemoryCapBytes: 128 * 1024 * 1024,
  workerMemoryRetainBytes: 64 * 1024 * 1024,
  maxHostCalls: 10_000,
  maxHostArgsBytes: 1024 * 1024,
  maxHostResultBytes: 1024 * 1024,
  extraWorkerIdleMs: 10_000,
};

const MIN_MEMORY_BYTES = 1024 * 1024;

/** Every pool option with its default applied (hostCallTimeoutMs defaults per request, to its timeout). */
export type SandboxSettings = typeof DEFAULTS & { hostCallTimeoutMs: number | undefined };

export interface ResolvedPoolOptions {
  size: number;
  maxWorkers: number;
  workerUrl: URL;
  settings: SandboxSettings;
}

export const resolvePoolOptions = (options: SandboxPoolOptions): ResolvedPoolOptions => {
  const size = Math.max(1, Math.floor(options.size ?? Math.min(2, availableParallelism())));
  return {
    size,
    maxWorkers: Math.max(size, Math.floor(options.maxWorkers ?? size * 4)),
    // Beside this module in the source tree, beside index.mjs in a Lambda bundle (infra copies it there).
    workerUrl: options.workerUrl ?? new URL("./sandbox-worker.mjs", import.meta.url),
    settings: {
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      memoryBytes: options.memoryBytes ?? DEFAULTS.memoryBytes,
      maxOutputBytes: options.maxOutputBytes ?? DEFAULTS.maxOutputBytes,
      watchdogGraceMs: options.watchdogGraceMs ?? DEFAULTS.watchdogGraceMs,
      workerStackSizeMb: options.workerStackSizeMb ?? DEFAULTS.workerStackSizeMb,
      workerMemoryCapBytes: options.workerMemoryCapBytes ?? DEFAULTS.workerMemoryCapBytes,
      workerMemoryRetainBytes: options.workerMemoryRetainBytes ?? DEFAULTS.workerMemoryRetainBytes,
      hostCallTimeoutMs: options.hostCallTimeoutMs,
      maxHostCalls: options.maxHostCalls ?? DEFAULTS.maxHostCalls,
      maxHostArgsBytes: options.maxHostArgsBytes ?? DEFAULTS.maxHostArgsBytes,
      maxHostResultBytes: options.maxHostResultBytes ?? DEFAULTS.maxHostResultBytes,
      extraWorkerIdleMs: options.extraWorkerIdleMs ?? DEFAULTS.extraWorkerIdleMs,
    },
  };
};

/** A request with every limit resolved: the worker's part, and what stays on the host. */
export interface ResolvedRequest {
  request: WorkerEvaluateRequest;
  /** By index, as the worker names them in a hostCall. */
  hostFunctions: HostFunction[];
  maxHostResultBytes: number;
  depth: number;
  onHostError: ((path: string, error: unknown) => void) | undefined;
  /** The scheduler serves keys in turn (fair-queue.ts). */
  fairnessKey: string | undefined;
}

/** The resolved request, or the SandboxUnavailable to reject it with (globals that are not JSON, bad host paths). */
export const resolveRequest = (
  request: SandboxRequest,
  settings: SandboxSettings,
  collectStats: boolean,
): ResolvedRequest | SandboxUnavailable => {
  let globalsJson: string | undefined;
  try {
    globalsJson = request.globalsJson ?? (request.globals === undefined ? undefined : JSON.stringify(request.globals));
  } catch (error) {
    return new SandboxUnavailable("sandbox globals must be JSON data", { cause: error });
  }
  const hostEntries = Object.entries(request.hostFunctions ?? {});
  const pathProblem = hostPathProblem(hostEntries.map(([path]) => path));
  if (pathProblem !== undefined) return new SandboxUnavailable(pathProblem);
  const timeoutMs = request.timeoutMs ?? settings.timeoutMs;
  return {
    request: {
      code: request.code,
      ...(globalsJson === undefined ? {} : { globalsJson }),
      ...(request.prelude === undefined ? {} : { prelude: request.prelude }),
      timeoutMs,
      // Below ~16 KB QuickJS cannot even create a context (and aborts while freeing it).
      memoryBytes: Math.max(MIN_MEMORY_BYTES, request.memoryBytes ?? settings.memoryBytes),
      maxOutputBytes: request.maxOutputBytes ?? settings.maxOutputBytes,
      ...(hostEntries.length === 0 ? {} : { hostFunctions: hostEntries.map(([path]) => path) }),
      hostCallTimeoutMs: Math.min(timeoutMs, request.hostCallTimeoutMs ?? settings.hostCallTimeoutMs ?? timeoutMs),
      maxHostCalls: request.maxHostCalls ?? settings.maxHostCalls,
      maxHostArgsBytes: request.maxHostArgsBytes ?? settings.maxHostArgsBytes,
      ...(collectStats ? { collectStats } : {}),
    },
    hostFunctions: hostEntries.map(([, fn]) => fn),
    maxHostResultBytes: request.maxHostResultBytes ?? settings.maxHostResultBytes,
    depth: Math.max(0, Math.floor(request.depth ?? 0)),
    onHostError: request.onHostError,
    fairnessKey: request.fairnessKey,
  };
};
