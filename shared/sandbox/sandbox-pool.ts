import { availableParallelism } from "node:os";
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import { decodeHostArgs, encodeHostError, encodeHostFailure, encodeHostValue, hostPathProblem, type HostFunction } from "./host-call.js";
import { PendingHostCall } from "./pending-host-call.js";
import { SandboxAborted, SandboxError, SandboxMemoryExceeded, SandboxOutputTooLarge, SandboxTimeout, SandboxUnavailable } from "./sandbox-errors.js";
import type { HostReply, HostToWorker, WorkerEvaluateRequest, WorkerFailure, WorkerInit, WorkerStats, WorkerToHost } from "./sandbox-protocol.js";

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
}

/** Costs of one evaluation, from evaluateWithStats. */
export interface SandboxStats extends WorkerStats {
  durationMs: number;
}

export interface SandboxEvaluation {
  value: unknown;
  stats: SandboxStats;
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

interface Job {
  id: number;
  request: WorkerEvaluateRequest;
  hostFunctions: HostFunction[];
  maxHostResultBytes: number;
  depth: number;
  onHostError: ((path: string, error: unknown) => void) | undefined;
  /** Host calls in flight, aborted when the job ends however it ends. */
  pendingCalls: Map<number, PendingHostCall>;
  resolve: (evaluation: SandboxEvaluation) => void;
  reject: (error: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  ready: boolean;
  job: Job | null;
  watchdog: NodeJS.Timeout | null;
  idleTimer: NodeJS.Timeout | null;
  replyPort: MessagePort;
  replySignal: Int32Array;
  /** Set once we decided to drop it, so late events from the dying thread are ignored. */
  gone: boolean;
}

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

/**
 * A warm pool of worker threads, each evaluating one request at a time in a fresh QuickJS
 * runtime (see sandbox-worker.mjs). The pool owns the external watchdog: a worker still busy
 * at deadline + grace is terminated and replaced, because some QuickJS built-ins never poll
 * the interrupt handler. Idle workers are unref'd so a CLI process can exit.
 *
 * Host functions run here, on the main thread, while the calling worker blocks (see
 * sandbox-protocol.ts). A blocked worker may be waiting for a nested evaluation (a tool that
 * runs a script), so it does not count against `size`: the pool grows up to `maxWorkers`, and
 * nested work is queued ahead of top-level work. Past `maxWorkers`, nested work waits and
 * the caller's deadline ends the wait: slow, never a deadlock.
 */
export class SandboxPool {
  private readonly size: number;
  private readonly maxWorkers: number;
  private readonly settings: typeof DEFAULTS & { hostCallTimeoutMs: number | undefined };
  private readonly workerUrl: URL;
  private readonly preludes = new Map<string, string>();
  private readonly workers = new Set<PoolWorker>();
  private readonly queue: Job[] = [];
  private readonly readyWaiters: Array<() => void> = [];
  private nextJobId = 1;
  private closed = false;
  private startError: Error | undefined;

  constructor(options: SandboxPoolOptions = {}) {
    this.size = Math.max(1, Math.floor(options.size ?? Math.min(2, availableParallelism())));
    this.settings = {
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
    };
    this.maxWorkers = Math.max(this.size, Math.floor(options.maxWorkers ?? this.size * 4));
    this.workerUrl = options.workerUrl ?? new URL("./sandbox-worker.mjs", import.meta.url);
  }

  /**
   * Makes a trusted script available to requests as `prelude: id`. Workers keep the source
   * and parse it in each fresh context (QuickJS 0.32 cannot serialize bytecode), so keep
   * preludes small. Registering the same id twice must pass the same source.
   */
  registerPrelude(id: string, source: string): void {
    const existing = this.preludes.get(id);
    if (existing === source) return;
    if (existing !== undefined) throw new TypeError(`sandbox prelude '${id}' is already registered with different source`);
    this.preludes.set(id, source);
    for (const entry of this.workers) this.post(entry, { type: "prelude", id, source });
  }

  hasPrelude(id: string): boolean {
    return this.preludes.has(id);
  }

  /** Resolves with the guest's completion value (JSON round-tripped); rejects with a sandbox error. */
  async evaluate(request: SandboxRequest): Promise<unknown> {
    return (await this.run(request, false)).value;
  }

  /** Like evaluate, plus what the evaluation cost (QuickJS memory counters included). */
  evaluateWithStats(request: SandboxRequest): Promise<SandboxEvaluation> {
    return this.run(request, true);
  }

  private run(request: SandboxRequest, collectStats: boolean): Promise<SandboxEvaluation> {
    if (this.closed) return Promise.reject(new SandboxUnavailable("sandbox pool is closed"));
    if (request.prelude !== undefined && !this.preludes.has(request.prelude)) {
      return Promise.reject(new SandboxUnavailable(`unknown sandbox prelude '${request.prelude}'`));
    }
    if (request.signal?.aborted) return Promise.reject(new SandboxAborted());
    let globalsJson: string | undefined;
    try {
      globalsJson = request.globalsJson ?? (request.globals === undefined ? undefined : JSON.stringify(request.globals));
    } catch (error) {
      return Promise.reject(new SandboxUnavailable("sandbox globals must be JSON data", { cause: error }));
    }
    const hostEntries = Object.entries(request.hostFunctions ?? {});
    const pathProblem = hostPathProblem(hostEntries.map(([path]) => path));
    if (pathProblem !== undefined) return Promise.reject(new SandboxUnavailable(pathProblem));
    const timeoutMs = request.timeoutMs ?? this.settings.timeoutMs;
    const resolved: WorkerEvaluateRequest = {
      code: request.code,
      ...(globalsJson === undefined ? {} : { globalsJson }),
      ...(request.prelude === undefined ? {} : { prelude: request.prelude }),
      timeoutMs,
      // Below ~16 KB QuickJS cannot even create a context (and aborts while freeing it).
      memoryBytes: Math.max(MIN_MEMORY_BYTES, request.memoryBytes ?? this.settings.memoryBytes),
      maxOutputBytes: request.maxOutputBytes ?? this.settings.maxOutputBytes,
      ...(hostEntries.length === 0 ? {} : { hostFunctions: hostEntries.map(([path]) => path) }),
      hostCallTimeoutMs: Math.min(timeoutMs, request.hostCallTimeoutMs ?? this.settings.hostCallTimeoutMs ?? timeoutMs),
      maxHostCalls: request.maxHostCalls ?? this.settings.maxHostCalls,
      maxHostArgsBytes: request.maxHostArgsBytes ?? this.settings.maxHostArgsBytes,
      ...(collectStats ? { collectStats } : {}),
    };
    return new Promise((resolve, reject) => {
      const signal = request.signal;
      const job: Job = {
        id: this.nextJobId++,
        request: resolved,
        hostFunctions: hostEntries.map(([, fn]) => fn),
        maxHostResultBytes: request.maxHostResultBytes ?? this.settings.maxHostResultBytes,
        depth: Math.max(0, Math.floor(request.depth ?? 0)),
        onHostError: request.onHostError,
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
      const onAbort = (): void => this.abort(job);
      const finish = (): void => {
        signal?.removeEventListener("abort", onAbort);
        for (const call of job.pendingCalls.values()) call.abort(new SandboxAborted());
        job.pendingCalls.clear();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.enqueue(job);
      this.dispatch();
    });
  }

  /** Deeper (nested) work first: its caller holds a worker while it waits. */
  private enqueue(job: Job): void {
    const index = this.queue.findIndex((queued) => queued.depth < job.depth);
    if (index === -1) this.queue.push(job);
    else this.queue.splice(index, 0, job);
  }

  private abort(job: Job): void {
    const queued = this.queue.indexOf(job);
    if (queued !== -1) {
      this.queue.splice(queued, 1);
      job.reject(new SandboxAborted());
      return;
    }
    const entry = [...this.workers].find((candidate) => candidate.job === job);
    if (!entry) return;
    entry.job = null;
    job.reject(new SandboxAborted());
    void this.replace(entry);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Starts every worker and waits until all are ready (e.g. during Lambda init). */
  async warmUp(): Promise<void> {
    if (this.closed) throw new SandboxUnavailable("sandbox pool is closed");
    this.startError = undefined;
    while (this.workers.size < this.size) this.spawn();
    while (!this.closed && [...this.workers].some((entry) => !entry.ready)) {
      await new Promise<void>((resolve) => {
        this.readyWaiters.push(resolve);
        this.updateRefs();
      });
    }
    // Set by fail() while we awaited; TypeScript cannot see that.
    const startError = this.startError as Error | undefined;
    if (startError) throw new SandboxUnavailable(`sandbox worker could not start: ${startError.message}`);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new SandboxUnavailable("sandbox pool is closed"));
    const terminations = [...this.workers].map((entry) => {
      entry.job?.reject(new SandboxUnavailable("sandbox pool is closed"));
      entry.job = null;
      return this.drop(entry);
    });
    this.wakeReadyWaiters();
    await Promise.all(terminations);
  }

  private spawn(): PoolWorker {
    const channel = new MessageChannel();
    const replySignal = new SharedArrayBuffer(4);
    const init: WorkerInit = {
      preludes: Object.fromEntries(this.preludes),
      memoryCapBytes: this.settings.workerMemoryCapBytes,
      memoryRetainBytes: this.settings.workerMemoryRetainBytes,
      replyPort: channel.port2,
      replySignal,
    };
    const worker = new Worker(this.workerUrl, {
      workerData: init,
      transferList: [channel.port2],
      // Nothing of the host environment (credentials live in process.env on Lambda).
      env: {},
      execArgv: [],
      resourceLimits: { stackSizeMb: this.settings.workerStackSizeMb, maxOldGenerationSizeMb: 128 },
    });
    worker.unref();
    channel.port1.unref();
    const entry: PoolWorker = {
      worker,
      ready: false,
      job: null,
      watchdog: null,
      idleTimer: null,
      replyPort: channel.port1,
      replySignal: new Int32Array(replySignal),
      gone: false,
    };
    this.workers.add(entry);
    worker.on("message", (message: WorkerToHost) => this.onMessage(entry, message));
    worker.on("error", (error: Error & { code?: string }) => {
      const failure =
        error.code === "ERR_WORKER_OUT_OF_MEMORY" && entry.job
          ? new SandboxMemoryExceeded(entry.job.request.memoryBytes)
          : new SandboxUnavailable(`sandbox worker crashed: ${error.message}`);
      this.fail(entry, failure);
    });
    worker.on("exit", () => this.fail(entry, new SandboxUnavailable("sandbox worker exited")));
    return entry;
  }

  private onMessage(entry: PoolWorker, message: WorkerToHost): void {
    if (entry.gone) return;
    if (message.type === "ready") {
      entry.ready = true;
      this.wakeReadyWaiters();
      this.dispatch();
      this.trimLater(entry);
      return;
    }
    const job = entry.job;
    if (!job || job.id !== message.id) return;
    if (message.type === "hostCall") {
      this.onHostCall(entry, job, message);
      return;
    }
    this.clearWatchdog(entry);
    entry.job = null;
    if (message.ok) {
      try {
        const value: unknown = message.json === undefined ? undefined : JSON.parse(message.json);
        job.resolve({ value, stats: { durationMs: message.durationMs, hostCalls: 0, wasmMemoryBytes: 0, ...message.stats } });
      } catch (error) {
        job.reject(new SandboxUnavailable("sandbox result was not valid JSON", { cause: error }));
      }
    } else {
      job.reject(toError(message.error, job.request));
    }
    if (message.retire) void this.replace(entry);
    this.dispatch();
    this.trimLater(entry);
  }

  /**
   * Runs one host function for a worker blocked in Atomics.wait and wakes it with the reply.
   * The worker bounds its own wait (per-call timeout, evaluation deadline); the abort here
   * only tells the host function to stop. A reply for an evaluation that already ended is
   * dropped: that worker has moved on.
   */
  private onHostCall(entry: PoolWorker, job: Job, message: Extract<WorkerToHost, { type: "hostCall" }>): void {
    const path = job.request.hostFunctions?.[message.index];
    const fn = job.hostFunctions[message.index];
    if (path === undefined || fn === undefined) {
      this.reply(entry, { callId: message.callId, reply: encodeHostFailure("HOST_CALL_FAILED", "invalid host call") });
      return;
    }
    const call = new PendingHostCall(path, job.depth, job.request.hostCallTimeoutMs);
    job.pendingCalls.set(message.callId, call);
    // This worker no longer counts against `size`: queued work may get a new worker now.
    if (this.queue.length > 0) this.dispatch();
    call.run(
      () => fn(decodeHostArgs(message.argsJson), call.context),
      (outcome) => {
        job.pendingCalls.delete(message.callId);
        if (entry.job !== job || entry.gone) return;
        const reply = outcome.ok ? encodeHostValue(path, outcome.value, job.maxHostResultBytes) : this.hostFailure(job, path, outcome.error);
        this.reply(entry, { callId: message.callId, reply });
      },
    );
  }

  private hostFailure(job: Job, path: string, error: unknown): string {
    try {
      job.onHostError?.(path, error);
    } catch {
      // A failing logger must not change what the guest sees.
    }
    return encodeHostError(path, error);
  }

  private reply(entry: PoolWorker, reply: HostReply): void {
    entry.replyPort.postMessage(reply);
    Atomics.store(entry.replySignal, 0, 1);
    Atomics.notify(entry.replySignal, 0);
  }

  /** A worker died or misbehaved: fail its job, drop it, keep the pool at strength. */
  private fail(entry: PoolWorker, error: Error): void {
    if (entry.gone) return;
    const job = entry.job;
    entry.job = null;
    job?.reject(error);
    const diedBeforeReady = !entry.ready;
    void this.drop(entry);
    if (diedBeforeReady) {
      // A worker that cannot even start (missing module, bad bundle) would fail again: don't
      // respawn in a loop; fail the waiting work unless a healthy worker can still take it.
      this.startError = error;
      if (![...this.workers].some((other) => other.ready)) {
        for (const queued of this.queue.splice(0)) queued.reject(new SandboxUnavailable(`sandbox worker could not start: ${error.message}`));
      }
      this.wakeReadyWaiters();
      this.updateRefs();
      return;
    }
    if (!this.closed && this.workers.size < this.size) this.spawn();
    this.dispatch();
  }

  private async replace(entry: PoolWorker): Promise<void> {
    await this.drop(entry);
    if (!this.closed) {
      if (this.workers.size < this.size) this.spawn();
      this.dispatch();
    }
  }

  private async drop(entry: PoolWorker): Promise<void> {
    if (entry.gone) return;
    entry.gone = true;
    this.clearWatchdog(entry);
    this.clearIdleTimer(entry);
    this.workers.delete(entry);
    entry.replyPort.close();
    await entry.worker.terminate().catch(() => undefined);
  }

  /** Workers beyond `size` exist for nested work only; an idle one stops after a while. */
  private trimLater(entry: PoolWorker): void {
    if (entry.gone || entry.job || entry.idleTimer || this.workers.size <= this.size) return;
    entry.idleTimer = setTimeout(() => {
      entry.idleTimer = null;
      if (!entry.gone && !entry.job && this.workers.size > this.size) void this.drop(entry);
    }, this.settings.extraWorkerIdleMs);
    entry.idleTimer.unref();
  }

  /** `size` plus one per worker blocked in a host call (it may be waiting for nested work). */
  private capacity(): number {
    const blocked = [...this.workers].filter((entry) => entry.job !== null && entry.job.pendingCalls.size > 0).length;
    return Math.min(this.maxWorkers, this.size + blocked);
  }

  private dispatch(): void {
    while (this.queue.length > 0 && !this.closed) {
      const idle = [...this.workers].find((entry) => entry.ready && !entry.job && !entry.gone);
      if (!idle) {
        const starting = [...this.workers].filter((entry) => !entry.ready).length;
        const capacity = this.capacity();
        for (let n = starting; n < this.queue.length && this.workers.size < capacity; n++) this.spawn();
        break;
      }
      const job = this.queue.shift() as Job;
      this.start(idle, job);
    }
    this.updateRefs();
  }

  /** Keeps the process alive only while work runs or someone waits for a starting worker. */
  private updateRefs(): void {
    const waiting = this.queue.length > 0 || this.readyWaiters.length > 0;
    for (const entry of this.workers) {
      if (entry.job || (!entry.ready && waiting)) entry.worker.ref();
      else entry.worker.unref();
    }
  }

  private start(entry: PoolWorker, job: Job): void {
    this.clearIdleTimer(entry);
    entry.job = job;
    entry.worker.ref();
    entry.watchdog = setTimeout(() => {
      if (entry.job !== job) return;
      entry.job = null;
      job.reject(new SandboxTimeout(job.request.timeoutMs, true));
      void this.replace(entry);
    }, job.request.timeoutMs + this.settings.watchdogGraceMs);
    this.post(entry, { type: "evaluate", id: job.id, request: job.request });
  }

  private post(entry: PoolWorker, message: HostToWorker): void {
    entry.worker.postMessage(message);
  }

  private clearWatchdog(entry: PoolWorker): void {
    if (entry.watchdog) clearTimeout(entry.watchdog);
    entry.watchdog = null;
  }

  private clearIdleTimer(entry: PoolWorker): void {
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    entry.idleTimer = null;
  }

  private wakeReadyWaiters(): void {
    for (const wake of this.readyWaiters.splice(0)) wake();
  }
}

let defaultPool: SandboxPool | undefined;

/** The process-wide pool, created on first use (the QuickJS wasm loads only where scripts run). */
export const getDefaultSandboxPool = (): SandboxPool => {
  if (!defaultPool || defaultPool.isClosed) defaultPool = new SandboxPool();
  return defaultPool;
};
