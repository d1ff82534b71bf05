import { SandboxAborted, SandboxUnavailable } from "./sandbox-errors.js";
import { FairQueue } from "./fair-queue.js";
import type { Job } from "./sandbox-job.js";
import type { HostToWorker } from "./sandbox-protocol.js";
import { SandboxWorkerHandle, type WorkerHandleEvents, type WorkerHandleSettings } from "./sandbox-worker-handle.js";

export interface SchedulerSettings {
  /** Workers kept warm. */
  size: number;
  maxWorkers: number;
  extraWorkerIdleMs: number;
  worker: WorkerHandleSettings;
}

/**
 * The queue and the workers it dispatches to, kept at `size`. A worker blocked in a host call
 * may be waiting for a nested evaluation (a tool that runs a script), so it does not count
 * against `size`: the pool grows up to `maxWorkers`, and nested work is queued ahead of
 * top-level work. Past `maxWorkers`, nested work waits and the caller's deadline ends the
 * wait: slow, never a deadlock.
 */
export class SandboxScheduler {
  private readonly workers = new Set<SandboxWorkerHandle>();
  /** Nested work first, then tenants in turn (fair-queue.ts). */
  private readonly queue = new FairQueue<Job>();
  private readonly readyWaiters: Array<() => void> = [];
  private closed = false;
  private startError: Error | undefined;
  private readonly events: WorkerHandleEvents = {
    ready: (handle) => {
      this.wakeReadyWaiters();
      this.dispatch();
      this.trimLater(handle);
    },
    // This worker no longer counts against `size`: queued work may get a new worker now.
    blocked: () => {
      if (this.queue.length > 0) this.dispatch();
    },
    finished: (handle, retire) => {
      if (retire) void this.replace(handle);
      this.dispatch();
      this.trimLater(handle);
    },
    overran: (handle) => void this.replace(handle),
    failed: (handle, error) => this.fail(handle, error),
  };

  /** `preludes` is read at each spawn, so a new worker starts with every prelude registered so far. */
  constructor(
    private readonly settings: SchedulerSettings,
    private readonly preludes: ReadonlyMap<string, string>,
  ) {}

  get isClosed(): boolean {
    return this.closed;
  }

  submit(job: Job): void {
    this.enqueue(job);
    this.dispatch();
  }

  /** Tells every worker, starting ones included. */
  broadcast(message: HostToWorker): void {
    for (const handle of this.workers) handle.post(message);
  }

  abort(job: Job): void {
    if (this.queue.remove(job)) {
      job.reject(new SandboxAborted());
      return;
    }
    const handle = [...this.workers].find((candidate) => candidate.job === job);
    if (!handle) return;
    handle.takeJob();
    job.reject(new SandboxAborted());
    void this.replace(handle);
  }

  /** Starts every warm worker and waits until all are ready. */
  async warmUp(): Promise<void> {
    if (this.closed) throw new SandboxUnavailable("sandbox pool is closed");
    this.startError = undefined;
    while (this.workers.size < this.settings.size) this.spawn();
    while (!this.closed && [...this.workers].some((handle) => !handle.ready)) {
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
    for (const job of this.queue.drain()) job.reject(new SandboxUnavailable("sandbox pool is closed"));
    const terminations = [...this.workers].map((handle) => {
      handle.takeJob()?.reject(new SandboxUnavailable("sandbox pool is closed"));
      return this.drop(handle);
    });
    this.wakeReadyWaiters();
    await Promise.all(terminations);
  }

  private enqueue(job: Job): void {
    this.queue.push(job);
  }

  private spawn(): void {
    this.workers.add(new SandboxWorkerHandle(this.settings.worker, Object.fromEntries(this.preludes), this.events));
  }

  /** A worker died or misbehaved: fail its job, drop it, keep the pool at strength. */
  private fail(handle: SandboxWorkerHandle, error: Error): void {
    handle.takeJob()?.reject(error);
    const diedBeforeReady = !handle.ready;
    void this.drop(handle);
    if (diedBeforeReady) {
      // A worker that cannot even start (missing module, bad bundle) would fail again: don't
      // respawn in a loop; fail the waiting work unless a healthy worker can still take it.
      this.startError = error;
      if (![...this.workers].some((other) => other.ready)) {
        for (const queued of this.queue.drain()) queued.reject(new SandboxUnavailable(`sandbox worker could not start: ${error.message}`));
      }
      this.wakeReadyWaiters();
      this.updateRefs();
      return;
    }
    if (!this.closed && this.workers.size < this.settings.size) this.spawn();
    this.dispatch();
  }

  private async replace(handle: SandboxWorkerHandle): Promise<void> {
    await this.drop(handle);
    if (!this.closed) {
      if (this.workers.size < this.settings.size) this.spawn();
      this.dispatch();
    }
  }

  private async drop(handle: SandboxWorkerHandle): Promise<void> {
    if (handle.gone) return;
    this.workers.delete(handle);
    await handle.terminate();
  }

  /** Workers beyond `size` exist for nested work only; an idle one stops after a while. */
  private trimLater(handle: SandboxWorkerHandle): void {
    if (this.workers.size <= this.settings.size) return;
    handle.whenIdleFor(this.settings.extraWorkerIdleMs, () => {
      if (this.workers.size > this.settings.size) void this.drop(handle);
    });
  }

  /** `size` plus one per worker blocked in a host call (it may be waiting for nested work). */
  private capacity(): number {
    const blocked = [...this.workers].filter((handle) => handle.blockedInHostCall).length;
    return Math.min(this.settings.maxWorkers, this.settings.size + blocked);
  }

  private dispatch(): void {
    while (this.queue.length > 0 && !this.closed) {
      const idle = [...this.workers].find((handle) => handle.idle);
      if (!idle) {
        const starting = [...this.workers].filter((handle) => !handle.ready).length;
        const capacity = this.capacity();
        for (let n = starting; n < this.queue.length && this.workers.size < capacity; n++) this.spawn();
        break;
      }
      const job = this.queue.shift() as Job;
      idle.start(job);
    }
    this.updateRefs();
  }

  /** Keeps the process alive only while work runs or someone waits for a starting worker. */
  private updateRefs(): void {
    const waiting = this.queue.length > 0 || this.readyWaiters.length > 0;
    for (const handle of this.workers) {
      if (handle.job || (!handle.ready && waiting)) handle.ref();
      else handle.unref();
    }
  }

  private wakeReadyWaiters(): void {
    for (const wake of this.readyWaiters.splice(0)) wake();
  }
}
