/** What the queue needs of a job: its nesting depth and whom it is for. */
export interface FairJob {
  depth: number;
  fairnessKey?: string | undefined;
}

const ANONYMOUS = "";

/**
 * The sandbox scheduler's queue. Deeper (nested) work first — its caller holds a worker while it
 * waits, so serving it first is what keeps nesting from deadlocking; within one depth, keys
 * (tenants) take turns round-robin in the order they first queued, and each key's jobs stay
 * FIFO. O(keys + jobs) per shift, which is nothing next to a QuickJS evaluation.
 */
export class FairQueue<J extends FairJob> {
  private readonly jobs: J[] = [];
  /** Keys in round-robin order; the next turn starts at `cursor`. */
  private readonly ring: string[] = [];
  private cursor = 0;

  get length(): number {
    return this.jobs.length;
  }

  push(job: J): void {
    this.jobs.push(job);
    const key = job.fairnessKey ?? ANONYMOUS;
    if (!this.ring.includes(key)) this.ring.push(key);
  }

  shift(): J | undefined {
    if (this.jobs.length === 0) return undefined;
    const depth = Math.max(...this.jobs.map((job) => job.depth));
    for (let step = 0; step < this.ring.length; step++) {
      const index = (this.cursor + step) % this.ring.length;
      const key = this.ring[index];
      const position = this.jobs.findIndex((job) => job.depth === depth && (job.fairnessKey ?? ANONYMOUS) === key);
      if (position === -1) continue;
      const [job] = this.jobs.splice(position, 1) as [J];
      this.cursor = index + 1;
      this.forgetIdleKeys();
      return job;
    }
    return undefined;
  }

  remove(job: J): boolean {
    const position = this.jobs.indexOf(job);
    if (position === -1) return false;
    this.jobs.splice(position, 1);
    this.forgetIdleKeys();
    return true;
  }

  drain(): J[] {
    const all = this.jobs.splice(0);
    this.ring.length = 0;
    this.cursor = 0;
    return all;
  }

  /** A key without queued jobs leaves the ring (it rejoins at the end when it queues again). */
  private forgetIdleKeys(): void {
    for (let index = this.ring.length - 1; index >= 0; index--) {
      const key = this.ring[index];
      if (this.jobs.some((job) => (job.fairnessKey ?? ANONYMOUS) === key)) continue;
      this.ring.splice(index, 1);
      if (index < this.cursor) this.cursor--;
    }
    if (this.cursor >= this.ring.length) this.cursor = 0;
  }
}
