/**
 * How long this instance's waited requests take to settle, from the moment the caller starts
 * waiting to the lane's completion write (the record's `settledAtMs`): a waiting caller reads
 * its request first after `firstReadMs()`, so that read usually finds it settled (one read a
 * turn) instead of polling from the moment it was enqueued.
 *
 * The estimate is a high quantile of the recent samples: most first reads come late enough, and
 * the few that come early cost one poll more. Kept between `floorMs` and `capMs`: a wait without
 * a slot lasts at most `capMs` (wait-slots.ts).
 */
export class SettleTimeEstimate {
  private readonly samples: number[] = [];
  private next = 0;

  constructor(
    private readonly initialMs = 50,
    private readonly floorMs = 2,
    private readonly capMs = 500,
    private readonly window = 32,
    private readonly quantile = 0.8,
  ) {}

  /** The default estimate over the last `window` samples. */
  static withWindow(window: number): SettleTimeEstimate {
    return new SettleTimeEstimate(undefined, undefined, undefined, window);
  }

  /** Samples held (at most the window). */
  get size(): number {
    return this.samples.length;
  }

  firstReadMs(): number {
    if (this.samples.length === 0) return this.initialMs;
    const sorted = [...this.samples].sort((a, b) => a - b);
    const at = sorted[Math.min(sorted.length - 1, Math.floor(this.quantile * sorted.length))] as number;
    return Math.min(this.capMs, Math.max(this.floorMs, Math.ceil(at + MARGIN_MS)));
  }

  /** A request settled `tookMs` after its caller started waiting. */
  sample(tookMs: number): void {
    const value = Math.max(0, tookMs);
    if (this.samples.length < this.window) this.samples.push(value);
    else this.samples[this.next] = value;
    this.next = (this.next + 1) % this.window;
  }
}

/** The read itself arrives a little after it is sent; clocks of two functions differ a little. */
const MARGIN_MS = 2;
