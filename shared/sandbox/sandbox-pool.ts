import { SandboxAborted, SandboxUnavailable } from "./sandbox-errors.js";
import { createJob, type SandboxEvaluation } from "./sandbox-job.js";
import {
  resolvePoolOptions,
  resolveRequest,
  type SandboxPoolOptions,
  type SandboxRequest,
  type SandboxSettings,
} from "./sandbox-options.js";
import { SandboxScheduler } from "./sandbox-scheduler.js";

export type { SandboxEvaluation, SandboxStats } from "./sandbox-job.js";
export type { SandboxPoolOptions, SandboxRequest } from "./sandbox-options.js";

/**
 * A warm pool of worker threads, each evaluating one request at a time in a fresh QuickJS
 * runtime (see sandbox-worker.mjs). The parts: sandbox-options.ts (defaults, request
 * resolution), sandbox-scheduler.ts (queue, dispatch, pool size), sandbox-worker-handle.ts
 * (one worker and its watchdog), host-call-bridge.ts (host functions for a blocked worker).
 *
 * Host functions run here, on the main thread, while the calling worker blocks (see
 * sandbox-protocol.ts). A blocked worker may be waiting for a nested evaluation, so the pool
 * grows past `size` up to `maxWorkers` and serves nested work first.
 */
export class SandboxPool {
  private readonly settings: SandboxSettings;
  private readonly preludes = new Map<string, string>();
  private readonly scheduler: SandboxScheduler;
  private nextJobId = 1;

  constructor(options: SandboxPoolOptions = {}) {
    const { size, maxWorkers, workerUrl, settings } = resolvePoolOptions(options);
    this.settings = settings;
    this.scheduler = new SandboxScheduler(
      {
        size,
        maxWorkers,
        extraWorkerIdleMs: settings.extraWorkerIdleMs,
        worker: {
          workerUrl,
          stackSizeMb: settings.workerStackSizeMb,
          memoryCapBytes: settings.workerMemoryCapBytes,
          memoryRetainBytes: settings.workerMemoryRetainBytes,
          watchdogGraceMs: settings.watchdogGraceMs,
        },
      },
      this.preludes,
    );
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
    this.scheduler.broadcast({ type: "prelude", id, source });
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

  get isClosed(): boolean {
    return this.scheduler.isClosed;
  }

  /** Starts every worker and waits until all are ready (e.g. during Lambda init). */
  warmUp(): Promise<void> {
    return this.scheduler.warmUp();
  }

  close(): Promise<void> {
    return this.scheduler.close();
  }

  private run(request: SandboxRequest, collectStats: boolean): Promise<SandboxEvaluation> {
    if (this.scheduler.isClosed) return Promise.reject(new SandboxUnavailable("sandbox pool is closed"));
    if (request.prelude !== undefined && !this.preludes.has(request.prelude)) {
      return Promise.reject(new SandboxUnavailable(`unknown sandbox prelude '${request.prelude}'`));
    }
    if (request.signal?.aborted) return Promise.reject(new SandboxAborted());
    const resolved = resolveRequest(request, this.settings, collectStats);
    if (resolved instanceof SandboxUnavailable) return Promise.reject(resolved);
    return new Promise((resolve, reject) => {
      const job = createJob(this.nextJobId++, resolved, request.signal, (aborted) => this.scheduler.abort(aborted), resolve, reject);
      this.scheduler.submit(job);
    });
  }
}

let defaultPool: SandboxPool | undefined;

/** The process-wide pool, created on first use (the QuickJS wasm loads only where scripts run). */
export const getDefaultSandboxPool = (): SandboxPool => {
  if (!defaultPool || defaultPool.isClosed) defaultPool = new SandboxPool();
  return defaultPool;
};
