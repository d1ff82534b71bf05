import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { SandboxError, SandboxMemoryExceeded, SandboxOutputTooLarge, SandboxTimeout, SandboxUnavailable } from "./sandbox-errors.js";
import type { HostToWorker, WorkerEvaluateRequest, WorkerFailure, WorkerInit, WorkerToHost } from "./sandbox-protocol.js";

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
}

const DEFAULTS = {
  timeoutMs: 1_000,
  memoryBytes: 32 * 1024 * 1024,
  maxOutputBytes: 1024 * 1024,
  watchdogGraceMs: 250,
  workerStackSizeMb: 16,
  workerMemoryCapBytes: 128 * 1024 * 1024,
  workerMemoryRetainBytes: 64 * 1024 * 1024,
};

const MIN_MEMORY_BYTES = 1024 * 1024;

interface Job {
  id: number;
  request: WorkerEvaluateRequest;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  ready: boolean;
  job: Job | null;
  watchdog: NodeJS.Timeout | null;
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
 */
export class SandboxPool {
  private readonly size: number;
  private readonly settings: typeof DEFAULTS;
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
    };
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
  evaluate(request: SandboxRequest): Promise<unknown> {
    if (this.closed) return Promise.reject(new SandboxUnavailable("sandbox pool is closed"));
    if (request.prelude !== undefined && !this.preludes.has(request.prelude)) {
      return Promise.reject(new SandboxUnavailable(`unknown sandbox prelude '${request.prelude}'`));
    }
    let globalsJson: string | undefined;
    try {
      globalsJson = request.globalsJson ?? (request.globals === undefined ? undefined : JSON.stringify(request.globals));
    } catch (error) {
      return Promise.reject(new SandboxUnavailable("sandbox globals must be JSON data", { cause: error }));
    }
    const resolved: WorkerEvaluateRequest = {
      code: request.code,
      ...(globalsJson === undefined ? {} : { globalsJson }),
      ...(request.prelude === undefined ? {} : { prelude: request.prelude }),
      timeoutMs: request.timeoutMs ?? this.settings.timeoutMs,
      // Below ~16 KB QuickJS cannot even create a context (and aborts while freeing it).
      memoryBytes: Math.max(MIN_MEMORY_BYTES, request.memoryBytes ?? this.settings.memoryBytes),
      maxOutputBytes: request.maxOutputBytes ?? this.settings.maxOutputBytes,
    };
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextJobId++, request: resolved, resolve, reject });
      this.dispatch();
    });
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
    const init: WorkerInit = {
      preludes: Object.fromEntries(this.preludes),
      memoryCapBytes: this.settings.workerMemoryCapBytes,
      memoryRetainBytes: this.settings.workerMemoryRetainBytes,
    };
    const worker = new Worker(this.workerUrl, {
      workerData: init,
      // Nothing of the host environment (credentials live in process.env on Lambda).
      env: {},
      execArgv: [],
      resourceLimits: { stackSizeMb: this.settings.workerStackSizeMb, maxOldGenerationSizeMb: 128 },
    });
    worker.unref();
    const entry: PoolWorker = { worker, ready: false, job: null, watchdog: null, gone: false };
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
      return;
    }
    const job = entry.job;
    if (!job || job.id !== message.id) return;
    this.clearWatchdog(entry);
    entry.job = null;
    if (message.ok) {
      try {
        job.resolve(message.json === undefined ? undefined : JSON.parse(message.json));
      } catch (error) {
        job.reject(new SandboxUnavailable("sandbox result was not valid JSON", { cause: error }));
      }
    } else {
      job.reject(toError(message.error, job.request));
    }
    if (message.retire) void this.replace(entry);
    this.dispatch();
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
    if (!this.closed) this.spawn();
    this.dispatch();
  }

  private async replace(entry: PoolWorker): Promise<void> {
    await this.drop(entry);
    if (!this.closed) {
      this.spawn();
      this.dispatch();
    }
  }

  private async drop(entry: PoolWorker): Promise<void> {
    if (entry.gone) return;
    entry.gone = true;
    this.clearWatchdog(entry);
    this.workers.delete(entry);
    await entry.worker.terminate().catch(() => undefined);
  }

  private dispatch(): void {
    while (this.queue.length > 0 && !this.closed) {
      const idle = [...this.workers].find((entry) => entry.ready && !entry.job && !entry.gone);
      if (!idle) {
        const starting = [...this.workers].filter((entry) => !entry.ready).length;
        for (let n = starting; n < this.queue.length && this.workers.size < this.size; n++) this.spawn();
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
