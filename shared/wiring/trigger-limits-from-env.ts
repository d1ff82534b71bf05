import { readConfig, type ConfigEnvironment } from "../config/config.js";
import { SkillTriggerMatcher } from "../skills/triggers/skill-trigger-matcher.js";
import { DEFAULT_TRIGGER_CACHE_BYTES, TriggerPatternCache } from "../skills/triggers/skill-trigger-pattern.js";
import { DEFAULT_TRIGGER_LEVEL_CAPS, type TriggerLevelCaps } from "../skills/triggers/trigger-caps.js";
import { DEFAULT_DFA_BYTES_PER_PATTERN, DEFAULT_DFA_BYTES_TOTAL, DfaMemoryLedger } from "../skills/triggers/trigger-dfa-memory.js";
import { DEFAULT_TRIGGER_TIME_LIMITS } from "../skills/triggers/trigger-time-budget.js";

const TRIGGER_SETTINGS = [
  "triggerBudgetMs",
  "triggerCacheBytes",
  "triggerDfaBytes",
  "triggerDfaTotalBytes",
  "triggerPatternsPerLevel",
  "triggersPerLevel",
] as const;

/** The level caps on triggers (trigger-caps.ts), from SKILLS_TRIGGER_PATTERNS_PER_LEVEL / SKILLS_TRIGGERS_PER_LEVEL. */
export function triggerLevelCapsFromEnv(env: ConfigEnvironment = process.env): TriggerLevelCaps {
  const config = readConfig(env, TRIGGER_SETTINGS);
  return {
    patternsPerLevel: config.triggerPatternsPerLevel ?? DEFAULT_TRIGGER_LEVEL_CAPS.patternsPerLevel,
    triggersPerLevel: config.triggersPerLevel ?? DEFAULT_TRIGGER_LEVEL_CAPS.triggersPerLevel,
  };
}

/**
 * The matcher of one container: its pattern cache and DFA ledger are the container's, sized by
 * the SKILLS_TRIGGER_* variables (one app per container, so "process-wide" holds).
 */
export function triggerMatcherFromEnv(env: ConfigEnvironment = process.env): SkillTriggerMatcher {
  const config = readConfig(env, TRIGGER_SETTINGS);
  const ledger = new DfaMemoryLedger({
    perDfaBytes: config.triggerDfaBytes ?? DEFAULT_DFA_BYTES_PER_PATTERN,
    totalBytes: config.triggerDfaTotalBytes ?? DEFAULT_DFA_BYTES_TOTAL,
  });
  const cache = new TriggerPatternCache({ maxBytes: config.triggerCacheBytes ?? DEFAULT_TRIGGER_CACHE_BYTES, ledger });
  return new SkillTriggerMatcher(cache, { ...DEFAULT_TRIGGER_TIME_LIMITS, budgetMs: config.triggerBudgetMs ?? DEFAULT_TRIGGER_TIME_LIMITS.budgetMs });
}
