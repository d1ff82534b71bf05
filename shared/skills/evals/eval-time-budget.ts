import { TriggerTimeBudget } from "../triggers/trigger-time-budget.js";

/**
 * What one run of a skill's evals may take. A file holds up to 1000 messages of 4 KiB, matched
 * against every visible skill: unbounded, that measured ~30 s, past API Gateway's 29 s. The
 * route stops well before; a save stops sooner, so evals never make a PUT slow. Offline (the
 * CLI) the author waits for the whole suite.
 */
export const ROUTE_EVALS_TIME_BUDGET_MS = 5_000;
export const SAVE_EVALS_TIME_BUDGET_MS = 2_000;
export const OFFLINE_EVALS_TIME_BUDGET_MS = Number.POSITIVE_INFINITY;

/**
 * The deadline of a whole evals run. Each message is matched under a TriggerTimeBudget holding
 * what is left (the matcher checks it before each regex); a run stops when it is spent.
 */
export class EvalTimeBudget {
  private readonly deadline: number;

  constructor(
    readonly ms: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.deadline = now() + ms;
  }

  spent(): boolean {
    return this.now() > this.deadline;
  }

  /** The rest of the run's time, for one message's matching. */
  forMessage(): TriggerTimeBudget {
    return new TriggerTimeBudget(Math.max(0, this.deadline - this.now()), this.now);
  }
}
