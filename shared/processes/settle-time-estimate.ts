/**
 * How long this instance's waited requests take to settle, learned as they do: a waiting caller
 * reads its request first after `firstReadMs()`, so the read usually finds it settled (one read
 * a turn) instead of polling from the moment it was enqueued.
 *
 * A read that finds the request settled only says it took at most that long, so the estimate
 * creeps down a little after each (it probes for a faster lane); a read that came too early sees
 * how long it really took (to the poll interval) and moves up past it at once. Kept between
 * `floorMs` and `capMs`: an un-slotted wait lasts at most `capMs` (wait-slots.ts).
 */
export class SettleTimeEstimate {
  private estimateMs: number;

  constructor(
    initialMs = 50,
    private readonly floorMs = 5,
    private readonly capMs = 500,
  ) {
    this.estimateMs = initialMs;
  }

  firstReadMs(): number {
    return Math.round(this.estimateMs);
  }

  /** The request was settled at the first read, `firstReadMs()` after it was enqueued. */
  settledByFirstRead(): void {
    this.estimateMs = Math.max(this.floorMs, this.estimateMs * PROBE_DOWN);
  }

  /** The first read came too early; the request settled `tookMs` after it was enqueued. */
  settledLater(tookMs: number): void {
    this.estimateMs = Math.min(this.capMs, Math.max(this.estimateMs * 1.25, tookMs * MARGIN));
  }
}

/** 2 % down per hit: about one miss in ten turns of a steady lane. */
const PROBE_DOWN = 0.98;
/** Above what a late turn took, so the next such turn is caught by the first read. */
const MARGIN = 1.2;
