import { resolvedSkill } from "./compose-bench-helpers.js";
import { REPETITIONS } from "./bench-mode.js";
import { percentile, repeated, type BenchRow } from "./bench-table.js";
import type { Process } from "../shared/processes/process.js";
import type { SkillTrigger } from "../shared/skills/skill-frontmatter.js";
import { SkillTriggerMatcher } from "../shared/skills/triggers/skill-trigger-matcher.js";
import { TriggerPatternCache } from "../shared/skills/triggers/skill-trigger-pattern.js";
import { triggeredSkills } from "../shared/turns/trigger-hook.js";

/**
 * The hardening issue's trigger storm, on the trigger hook every composed turn runs (with its
 * default time budget, caps and the process-wide pattern cache settings): 20 members, each with
 * a `_user_` level at the pattern cap (5 skills × 20 distinct literal-less patterns), sending 32 KB
 * messages, while another tenant's small turn-sized match runs on the same event loop. Reported:
 * that other request's latency (p50 and p99 per storm, median of REPETITIONS storms) and the heap
 * after the first storm.
 */
const USERS = 20;
const STORM_TURNS = 200;

const snapshot: Pick<Process, "activeSkills" | "allowedSkillsOverride"> = { activeSkills: [], allowedSkillsOverride: null };

/**
 * One member's level. `storm` is part of every pattern: pattern literals and facts are memoized per
 * process (pattern-prefilter.ts, unkeyed-pattern-facts.ts), so a storm that reused the last one's
 * patterns would meet them compiled; each storm's are new, as a first storm's are.
 */
function userListing(user: number, storm: number) {
  return Object.freeze(
    Array.from({ length: 5 }, (_, s) =>
      resolvedSkill({
        name: `u${user}-s${s}`,
        source: "USER",
        triggers: Array.from({ length: 20 }, (_, p): SkillTrigger => ({
          type: "PATTERN",
          pattern: `[a-z]{2,4}\\d{${1 + ((user + s + p) % 7)}}[q-z]{${1 + (p % 4)}}-${user}s${storm}`,
        })),
      }),
    ),
  );
}

/** One storm on a fresh matcher (its own pattern cache) over fresh listings: the other tenant's latencies, in ms. */
async function storm(listings: readonly ReturnType<typeof userListing>[], hostile: string): Promise<number[]> {
  const matcher = new SkillTriggerMatcher(new TriggerPatternCache());
  const victim = Object.freeze([
    resolvedSkill({ name: "deploy", source: "PROJECT", triggers: [{ type: "KEYWORDS", keywords: ["deploy"] }] }),
  ]);
  const victimMs: number[] = [];
  let stormDone = false;
  const attack = (async () => {
    for (let i = 0; i < STORM_TURNS; i++) {
      triggeredSkills(listings[i % USERS]!, snapshot, `${hostile}${i}`, matcher);
      await new Promise((resolve) => setImmediate(resolve));
    }
    stormDone = true;
  })();
  const other = (async () => {
    while (!stormDone) {
      const queued = performance.now();
      await new Promise((resolve) => setImmediate(resolve));
      triggeredSkills(victim, snapshot, "please deploy the service", matcher);
      victimMs.push(performance.now() - queued);
    }
  })();
  await Promise.all([attack, other]);
  return victimMs;
}

export async function benchTriggerStorm(): Promise<BenchRow[]> {
  const hostile = `${"zz9 qq 42 lorem ".repeat(2200)}`.slice(0, 32 * 1024);
  const heapBefore = process.memoryUsage().heapUsed;
  const runs: number[][] = [];
  // The heap is read after the first storm, as one storm leaves it; later storms' caches are garbage.
  let heapAfterMb = 0;
  for (let r = 0; r < REPETITIONS; r++) {
    const listings = Array.from({ length: USERS }, (_, u) => userListing(u, r));
    runs.push(await storm(listings, hostile));
    if (r === 0) heapAfterMb = process.memoryUsage().heapUsed / 2 ** 20;
  }
  const samples = `${Math.min(...runs.map((run) => run.length))}-${Math.max(...runs.map((run) => run.length))} samples a storm`;
  return [
    {
      metric: "trigger_storm_other_tenant_p50_ms",
      ...repeated(runs.map((run) => percentile(run, 50))),
      baseline: null,
      unit: "ms",
      note: `${USERS} members × 100 patterns, 32 KB messages, ${STORM_TURNS} turns, same event loop; ${REPETITIONS} storms (${samples})`,
    },
    {
      metric: "trigger_storm_other_tenant_p99_ms",
      ...repeated(runs.map((run) => percentile(run, 99))),
      baseline: null,
      unit: "ms",
      note: "bounded by the 50 ms per-message trigger budget",
    },
    {
      metric: "trigger_storm_heap_after_mb",
      ours: heapAfterMb,
      baseline: null,
      unit: "MB",
      note: `after the first storm; heap before ${(heapBefore / 2 ** 20).toFixed(0)} MB; DFA 128 KiB per pattern, cache 64 MiB`,
    },
  ];
}
