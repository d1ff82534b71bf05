/**
 * How long one message may spend in regex triggers (keyword and literal passes are linear and
 * always run). Matching is synchronous, so this bounds what one turn can take from the event
 * loop that every other request of the instance shares; patterns not run when it is spent are
 * skipped and their skills reported (never a failed turn).
 */
export const DEFAULT_TRIGGER_TIME_BUDGET_MS = 50;

export class TriggerTimeBudget {
  private readonly deadline: number;
  private spentFlag = false;
  /** Candidate positions whose patterns were not all run. */
  readonly skipped = new Set<number>();

  constructor(
    readonly ms: number = DEFAULT_TRIGGER_TIME_BUDGET_MS,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.deadline = now() + ms;
  }

  /** True once the budget is used up (checked before each regex run). */
  spent(): boolean {
    if (!this.spentFlag && this.now() > this.deadline) this.spentFlag = true;
    return this.spentFlag;
  }
}
