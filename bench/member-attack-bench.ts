import { resolvedSkill } from "./compose-bench-helpers.js";
import { REPETITIONS } from "./bench-mode.js";
import { percentile, repeated, type BenchRow } from "./bench-table.js";
import { renderPrompt } from "../shared/app/mcp/mcp-prompts.js";
import type { Process } from "../shared/processes/process.js";
import { EvalTimeBudget, ROUTE_EVALS_TIME_BUDGET_MS } from "../shared/skills/evals/eval-time-budget.js";
import { runTriggerEvals } from "../shared/skills/evals/trigger-evals.js";
import { MAX_RAW_ARGUMENTS_LENGTH } from "../shared/skills/skill-argument-binder.js";
import { parseSkillDocument } from "../shared/skills/skill-document-parser.js";
import type { SkillTrigger } from "../shared/skills/skill-frontmatter.js";
import { composeSection } from "../shared/skills/skill-prompt-composer.js";
import { SkillTriggerMatcher } from "../shared/skills/triggers/skill-trigger-matcher.js";
import { TriggerPatternCache } from "../shared/skills/triggers/skill-trigger-pattern.js";
import type { TemplateRenderer } from "../shared/templates/template-renderer.js";
import { triggeredSkills } from "../shared/turns/trigger-hook.js";

/**
 * Issue 28's member attacks beside the trigger storm, each on the code a request runs, on one
 * event loop with another tenant's small request: that request's latency (queued behind the
 * attack, then its own work) while the attack runs, p50 and p99, median of REPETITIONS runs with
 * their spread.
 *
 * - placeholder: a `_user_` Agent Skills SKILL.md whose body is 7 000 × `$0`, driven with a 64 KB
 *   argument through MCP prompts/get (renderPrompt) 12 at a time and through 8 concurrent
 *   composition previews (composeSection): each is refused while it is built.
 * - evals: two members' evals runs at once (each identity has one slot), 1 000 messages of 4 KB
 *   against a `_user_` level at the pattern cap, each under the route's 5 s budget.
 */

const NOT_RENDERED: TemplateRenderer = {
  render: () => Promise.reject(new Error("an Agent Skills body is not a template")),
};

const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Runs `attack` while another tenant's `victim` request runs again and again; its latencies, in ms. */
async function underAttack(attack: () => Promise<unknown>, victim: () => Promise<unknown> | unknown): Promise<number[]> {
  const latencies: number[] = [];
  let done = false;
  const attacking = attack().finally(() => {
    done = true;
  });
  while (!done) {
    const queued = performance.now();
    await nextTick();
    await victim();
    latencies.push(performance.now() - queued);
  }
  await attacking;
  return latencies;
}

function rows(prefix: string, runs: number[][], note: string): BenchRow[] {
  return [
    { metric: `${prefix}_other_tenant_p50_ms`, ...repeated(runs.map((r) => percentile(r, 50))), baseline: null, unit: "ms", note },
    {
      metric: `${prefix}_other_tenant_p99_ms`,
      ...repeated(runs.map((r) => percentile(r, 99))),
      baseline: null,
      unit: "ms",
      note: "the other tenant's request, queued behind the attack on the same event loop",
    },
  ];
}

export async function benchPlaceholderAttack(): Promise<BenchRow[]> {
  const text = `---\nname: amp\ndescription: Repeats its argument.\n---\n$ARGUMENTS\n${"$0 ".repeat(7_000)}\n`;
  const { definition } = parseSkillDocument("amp", text, "_vance/skills/amp/SKILL.md");
  if (definition === undefined) throw new Error("the attack skill does not parse");
  const amp = resolvedSkill({ ...definition, source: "USER" });
  const victimSkill = resolvedSkill({ name: "deploy", source: "PROJECT", body: "Deploy carefully.", template: false });
  const argument = "x".repeat(MAX_RAW_ARGUMENTS_LENGTH);
  const context = { section: async () => ({ params: {} }), activation: async () => ({ params: {} }) };
  let refused = 0;
  const promptsGet = () =>
    renderPrompt(amp, { text: argument }, NOT_RENDERED, context).then(
      () => undefined,
      () => void (refused += 1),
    );
  const preview = async () => {
    const section = await composeSection([{ skill: amp, args: argument }], {}, NOT_RENDERED);
    if (section.warnings.length > 0) refused += 1;
  };
  const heapBefore = process.memoryUsage().heapUsed;
  const runs: number[][] = [];
  for (let r = 0; r < REPETITIONS; r++) {
    runs.push(
      await underAttack(
        async () => {
          // 20 waves of 12 prompts/get (one former batch's worth) and 8 concurrent previews, each
          // call arriving as a request of its own (a macrotask, as an HTTP request does).
          for (let wave = 0; wave < 20; wave++) {
            await Promise.all([
              ...Array.from({ length: 12 }, () => nextTick().then(promptsGet)),
              ...Array.from({ length: 8 }, () => nextTick().then(preview)),
            ]);
          }
        },
        () => composeSection([{ skill: victimSkill }], {}, NOT_RENDERED),
      ),
    );
  }
  const heapAfterMb = process.memoryUsage().heapUsed / 2 ** 20;
  return [
    ...rows(
      "placeholder_attack",
      runs,
      `7 000 × $0, 64 KB argument: 20 waves of 12 prompts/get + 8 previews per run, ${refused} refused while built`,
    ),
    {
      metric: "placeholder_attack_heap_after_mb",
      ours: heapAfterMb,
      baseline: null,
      unit: "MB",
      note: `heap before ${(heapBefore / 2 ** 20).toFixed(0)} MB; unbounded, one prompts/get built 450 MB`,
    },
  ];
}

export async function benchEvalsAttack(): Promise<BenchRow[]> {
  const matcher = new SkillTriggerMatcher(new TriggerPatternCache());
  const member = (user: number) =>
    Array.from({ length: 5 }, (_, s) =>
      resolvedSkill({
        name: `u${user}-s${s}`,
        source: "USER",
        triggers: Array.from({ length: 20 }, (_, p): SkillTrigger => ({
          type: "PATTERN",
          pattern: `[a-z]{2,4}\\d{${1 + ((user + s + p) % 7)}}[q-z]{${1 + (p % 4)}}-${user}`,
        })),
      }),
    );
  const listings = [member(0), member(1)];
  const message = "zz9 qq 42 lorem ".repeat(256);
  const evals = {
    should: Array.from({ length: 500 }, (_, i) => `${message}${i}`),
    shouldNot: Array.from({ length: 500 }, (_, i) => `${message}not ${i}`),
  };
  const victim = Object.freeze([
    resolvedSkill({ name: "deploy", source: "PROJECT", triggers: [{ type: "KEYWORDS", keywords: ["deploy"] }] }),
  ]);
  const snapshot: Pick<Process, "activeSkills" | "allowedSkillsOverride"> = { activeSkills: [], allowedSkillsOverride: null };
  const runs: number[][] = [];
  const runMs: number[] = [];
  for (let r = 0; r < REPETITIONS; r++) {
    runs.push(
      await underAttack(
        async () => {
          const started = performance.now();
          await Promise.all(
            listings.map((listing) => runTriggerEvals(listing[0]!, listing, evals, new EvalTimeBudget(ROUTE_EVALS_TIME_BUDGET_MS))),
          );
          runMs.push(performance.now() - started);
        },
        () => triggeredSkills(victim, snapshot, "please deploy the service", matcher),
      ),
    );
  }
  return [
    ...rows("evals_attack", runs, "2 members' evals at once, 1 000 × 4 KB messages each against 5 skills × 20 patterns, route budget 5 s"),
    { metric: "evals_attack_run_ms", ...repeated(runMs), baseline: null, unit: "ms", note: "both runs, wall time (they yield every 4 ms)" },
  ];
}
