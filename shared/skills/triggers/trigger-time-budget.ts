/**
 * The time budget of trigger matching in one turn (docs/decisions.md, "Trigger memory and time").
 * Matching runs in steps (one regex run each); before each step the budget is asked whether time
 * is left. Two rules:
 *
 * - The budget counts the time spent matching, not the time spent waiting for the event loop:
 *   on a busy instance a turn's triggers are not skipped because other requests ran meanwhile.
 * - After `sliceMs` of matching it yields to the event loop (a macrotask, so timers, I/O and
 *   other requests' callbacks run first): matching never holds the instance longer than one
 *   slice plus one step, whatever the skills and the message are.
 */
export interface TriggerTimeLimits {
  /** Matching time one turn may spend on PATTERN triggers; what did not run is skipped. */
  readonly budgetMs: number;
  /** Matching time after which the event loop gets a turn. */
  readonly sliceMs: number;
}

export const DEFAULT_TRIGGER_TIME_LIMITS: TriggerTimeLimits = Object.freeze({ budgetMs: 200, sliceMs: 5 });

export interface TriggerBudgetClock {
  /** Milliseconds, monotonic. */
  now(): number;
  /** Gives the event loop a turn. */
  yieldToLoop(): Promise<void>;
}

export const realTriggerBudgetClock: TriggerBudgetClock = {
  now: () => performance.now(),
  yieldToLoop: () => new Promise((resolve) => setImmediate(resolve)),
};

export class TriggerTurnBudget {
  private spent = 0;
  private sliceStart: number;
  private sliceSpent = 0;

  constructor(
    readonly limits: TriggerTimeLimits = DEFAULT_TRIGGER_TIME_LIMITS,
    private readonly clock: TriggerBudgetClock = realTriggerBudgetClock,
  ) {
    this.sliceStart = clock.now();
  }

  /** Matching time spent so far (ms). */
  get spentMs(): number {
    return this.spent + this.sliceSpent;
  }

  /** False once the budget is used up; yields to the event loop first when the slice is. */
  async checkpoint(): Promise<boolean> {
    this.sliceSpent = this.clock.now() - this.sliceStart;
    if (this.spentMs >= this.limits.budgetMs) return false;
    if (this.sliceSpent >= this.limits.sliceMs) {
      this.spent += this.sliceSpent;
      this.sliceSpent = 0;
      await this.clock.yieldToLoop();
      this.sliceStart = this.clock.now();
    }
    return true;
  }
}
