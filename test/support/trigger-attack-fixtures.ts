import type { TriggerBudgetClock } from "../../shared/skills/triggers/trigger-time-budget.js";

export { hostileMessage, hostilePattern, hostileSkills, type HostileSkill } from "../../bench/trigger-attack-workload.js";

/**
 * A clock that advances `stepMs` on every reading, and records each yield to the event loop
 * (which it performs for real, with setImmediate): budgets and slices become a matter of how much
 * work was done, not of how fast this machine is.
 */
export function steppingClock(stepMs = 1): TriggerBudgetClock & { readonly yields: number } {
  let now = 0;
  let yields = 0;
  return {
    now: () => (now += stepMs),
    yieldToLoop: () => {
      yields += 1;
      return new Promise((resolve) => setImmediate(resolve));
    },
    get yields() {
      return yields;
    },
  };
}
