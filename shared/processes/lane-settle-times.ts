import { LRUCache } from "lru-cache";
import { SettleTimeEstimate } from "./settle-time-estimate.js";

/** Lanes whose settle times one instance remembers. */
const LANES = 1024;
/** A lane's own quantile is used once it has this many samples; before, the instance's. */
const MIN_LANE_SAMPLES = 4;
/** A lane's backlog comes and goes with its callers: fewer samples follow it sooner than the instance's 32. */
const LANE_WINDOW = 16;

/**
 * Settle times per lane (one process's FIFO group), with the whole instance's as the fallback
 * for a lane it has not seen enough of. A waited request settles after the lane's backlog plus
 * its own apply, and the backlog belongs to one process: learned over every lane of the instance,
 * a burst on one process (its q80 at the 500 ms cap) made the waiters of every other process
 * sleep that long too, long after their own lanes had answered.
 */
export class LaneSettleTimes {
  private readonly instance = new SettleTimeEstimate();
  private readonly lanes = new LRUCache<string, SettleTimeEstimate>({ max: LANES });

  firstReadMs(tenant: string, processId: string): number {
    const lane = this.lanes.get(laneKey(tenant, processId));
    return lane !== undefined && lane.size >= MIN_LANE_SAMPLES ? lane.firstReadMs() : this.instance.firstReadMs();
  }

  /** A request of this lane settled `tookMs` after its caller started waiting. */
  sample(tenant: string, processId: string, tookMs: number): void {
    this.instance.sample(tookMs);
    const key = laneKey(tenant, processId);
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = SettleTimeEstimate.withWindow(LANE_WINDOW);
      this.lanes.set(key, lane);
    }
    lane.sample(tookMs);
  }
}

const laneKey = (tenant: string, processId: string): string => `${tenant}\u0000${processId}`;
