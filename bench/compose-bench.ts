import { composeSection } from "../shared/skills/skill-prompt-composer.js";
import { SkillTriggerMatcher, triggerCandidates } from "../shared/skills/skill-trigger-matcher.js";
import { composeTools } from "../shared/skills/tool-union.js";
import { createTemplateRenderer } from "../shared/templates/sandboxed-template-renderer.js";
import { percentile, timeMany, type BenchRow } from "./bench-table.js";
import { syntheticMessage, syntheticSkills } from "./compose-bench-helpers.js";

const AVAILABLE = 1000;
const ACTIVE = 10;
const ROUNDS = 300;

/**
 * In-process composition of one turn: trigger matching over every available skill for a 2 KB
 * message, then the section of 10 active skills (each rendered with its own args) and the tool union.
 * "cold" renders every body for the first time (render cache empty); "steady" is the same turn again
 * with the render cache warm, the state a warm Lambda is in.
 */
export async function benchCompose(): Promise<BenchRow[]> {
  const skills = syntheticSkills(AVAILABLE);
  // Every other synthetic skill is templated: take ten of them so the cold figure really renders.
  const active = skills.filter((s) => s.body.includes("{%")).slice(0, ACTIVE).map((skill, i) => ({ skill, args: i % 2 ? `scope-${i}` : undefined }));
  const activeNames = new Set(active.map((a) => a.skill.name));
  const matcher = new SkillTriggerMatcher();
  const candidates = triggerCandidates(skills, { activeNames, allowedSkills: null });
  const messages = Array.from({ length: ROUNDS }, (_, i) => syntheticMessage(2048, i + 1));
  const context = { tier: "large", recipe: "default", engine: "ford" };

  const renderer = createTemplateRenderer();
  await renderer.render("{{ 1 }}", {}); // start the sandbox pool: its boot is reported separately
  const turn = async (i: number, ctx: typeof context): Promise<void> => {
    matcher.match(candidates, messages[i % messages.length] as string);
    await composeSection(active, ctx, renderer);
    composeTools({ engineTools: ["file_read"], skills: active.map((a) => a.skill) });
  };

  // Cold: a distinct context per round misses the render cache, so every templated body renders.
  const cold = await timeMany(40, (i) => turn(i, { ...context, tier: `cold-${i}` }));
  await turn(0, context);
  const steady = await timeMany(ROUNDS, (i) => turn(i, context));
  const matching = await timeMany(ROUNDS, (i) => matcher.match(candidates, messages[i] as string));
  const matchingFirst = (() => {
    const fresh = new SkillTriggerMatcher();
    const start = process.hrtime.bigint();
    fresh.match(triggerCandidates(skills, { activeNames, allowedSkills: null }), messages[0] as string);
    return Number(process.hrtime.bigint() - start) / 1e6;
  })();

  return [
    { metric: "compose_section_cold_p50_ms_1000", ours: percentile(cold, 50), baseline: null, unit: "ms", note: "10 active, every body rendered" },
    { metric: "compose_section_cold_p99_ms_1000", ours: percentile(cold, 99), baseline: null, unit: "ms" },
    { metric: "compose_section_p50_ms_1000", ours: percentile(steady, 50), baseline: null, unit: "ms", note: "steady: render cache warm, incl. triggers" },
    { metric: "compose_section_p99_ms_1000", ours: percentile(steady, 99), baseline: null, unit: "ms", note: "target ≤ 1 ms" },
    { metric: "trigger_match_p50_ms_1000", ours: percentile(matching, 50), baseline: null, unit: "ms", note: "2 KB message" },
    { metric: "trigger_match_p99_ms_1000", ours: percentile(matching, 99), baseline: null, unit: "ms" },
    { metric: "trigger_match_first_ms_1000", ours: matchingFirst, baseline: null, unit: "ms", note: "compiling every pattern" },
  ];
}
