import { Worker } from "node:worker_threads";
import { HostCallBridge } from "./host-call-bridge.js";
import { SandboxMemoryExceeded, SandboxTimeout, SandboxUnavailable } from "./sandbox-errors.js";
import { settleJob, type Job } from "./sandbox-job.js";
import type { HostToWorker, WorkerInit, WorkerToHost } from "./sandbox-protocol.js";

export interface WorkerHandleSettings {
  workerUrl: URL;
  stackSizeMb: number;
  /** WorkerInit.memoryCapBytes / memoryRetainBytes: the worker caps its wasm memory itself. */
  memoryCapBytes: number;
  memoryRetainBytes: number;
  watchdogGraceMs: number;
}

/** What the scheduler hears from one worker. */
export interface WorkerHandleEvents {
  /** It finished starting and takes work. */
  ready(handle: SandboxWorkerHandle): void;
  /** Its job waits for a host call now (see SandboxWorkerHandle.blockedInHostCall). */
  blocked(handle: SandboxWorkerHandle): void;
  /** Its job settled with the worker's result; `retire`: the worker asked to be replaced. */
  finished(handle: SandboxWorkerHandle, retire: boolean): void;
  /** The watchdog failed its job: the thread is still stuck in it and must be replaced. */
  overran(handle: SandboxWorkerHandle): void;
  /** The thread crashed or exited; `error` is for its job, if it still has one. */
  failed(handle: SandboxWorkerHandle, error: Error): void;
}

/**
 * One sandbox worker thread (sandbox-worker.mjs) and the job it runs. It owns the external
 * watchdog: a worker still busy at deadline + grace fails its job and is reported as overrun,
 * because some QuickJS built-ins never poll the interrupt handler and only terminating the
 * thread stops them. Idle workers are unref'd so a CLI process can exit.
 */
export class SandboxWorkerHandle {
  private readonly worker: Worker;
  private readonly bridge = new HostCallBridge();
  private isReady = false;
  private current: Job | null = null;
  /** Set once we decided to drop it, so late events from the dying thread are ignored. */
  private isGone = false;
  private watchdog: NodeJS.Timeout | null = null;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly settings: WorkerHandleSettings,
    preludes: Record<string, string>,
    private readonly events: WorkerHandleEvents,
  ) {
    const init: WorkerInit = {
      preludes,
      memoryCapBytes: settings.memoryCapBytes,
      memoryRetainBytes: settings.memoryRetainBytes,
      ...this.bridge.workerEnd,
    };
    this.worker = new Worker(settings.workerUrl, {
      workerData: init,
      transferList: [init.replyPort],
      // Nothing of the host environment (credentials live in process.env on Lambda).
      env: {},
      execArgv: [],
      resourceLimits: { stackSizeMb: settings.stackSizeMb, maxOldGenerationSizeMb: 128 },
    });
    this.worker.unref();
    this.worker.on("message", (message: WorkerToHost) => this.onMessage(message));
    this.worker.on("error", (error: Error & { code?: string }) => {
      if (this.isGone) return;
      const failure =
        error.code === "ERR_WORKER_OUT_OF_MEMORY" && this.current
          ? new SandboxMemoryExceeded(this.current.request.memoryBytes, { cause: error })
          : new SandboxUnavailable(`sandbox worker crashed: ${error.message}`, { cause: error });
      this.events.failed(this, failure);
    });
    this.worker.on("exit", () => {
      if (!this.isGone) this.events.failed(this, new SandboxUnavailable("sandbox worker exited"));
    });
  }

  get ready(): boolean {
    return this.isReady;
  }

  get gone(): boolean {
    return this.isGone;
  }

  get job(): Job | null {
    return this.current;
  }

  get idle(): boolean {
    return this.isReady && !this.current && !this.isGone;
  }

  /** Its job waits for a host call, which may be waiting for a nested evaluation. */
  get blockedInHostCall(): boolean {
    return this.current !== null && this.current.pendingCalls.size > 0;
  }

  start(job: Job): void {
    this.clearIdleTimer();
    this.current = job;
    this.worker.ref();
    this.watchdog = setTimeout(() => {
      if (this.current !== job) return;
      this.current = null;
      job.reject(new SandboxTimeout(job.request.timeoutMs, true));
      this.events.overran(this);
    }, job.request.timeoutMs + this.settings.watchdogGraceMs);
    this.post({ type: "evaluate", id: job.id, request: job.request });
  }

  /** Detaches the job without settling it; whoever takes it settles it (and replaces this worker if it still runs it). */
  takeJob(): Job | null {
    const job = this.current;
    this.current = null;
    return job;
  }

  post(message: HostToWorker): void {
    this.worker.postMessage(message);
  }

  ref(): void {
    this.worker.ref();
  }

  unref(): void {
    this.worker.unref();
  }

  /** Calls `onIdle` after `ms` without work, unless work arrives first; at most one timer at a time. */
  whenIdleFor(ms: number, onIdle: () => void): void {
    if (this.isGone || this.current || this.idleTimer) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (!this.isGone && !this.current) onIdle();
    }, ms);
    this.idleTimer.unref();
  }

  /** Stops the thread; from now on nothing it does reaches the scheduler. */
  async terminate(): Promise<void> {
    if (this.isGone) return;
    this.isGone = true;
    this.clearWatchdog();
    this.clearIdleTimer();
    this.bridge.close();
    await this.worker.terminate().catch(() => undefined);
  }

  private onMessage(message: WorkerToHost): void {
    if (this.isGone) return;
    if (message.type === "ready") {
      this.isReady = true;
      this.events.ready(this);
      return;
    }
    const job = this.current;
    if (!job || job.id !== message.id) return;
    if (message.type === "hostCall") {
      this.bridge.serve(
        job,
        message,
        () => this.events.blocked(this),
        () => this.current === job && !this.isGone,
      );
      return;
    }
    this.clearWatchdog();
    this.current = null;
    settleJob(job, message);
    this.events.finished(this, message.retire === true);
  }

  private clearWatchdog(): void {
    if (this.watchdog) clearTimeout(this.watchdog);
    this.watchdog = null;
  }

  private clearIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}
