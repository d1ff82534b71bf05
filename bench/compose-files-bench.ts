import { engineConfig } from "../shared/recipes/engines.js";
import type { ResolvedSkill } from "../shared/skills/resolved-skill.js";
import type { SkillFile } from "../shared/skills/skill-files.js";
import { skillsByName } from "../shared/skills/skill-listing.js";
import { SkillTriggerMatcher } from "../shared/skills/triggers/skill-trigger-matcher.js";
import { turnRenderContext } from "../shared/steering/render-context.js";
import { ServiceToolSpecs } from "../shared/turns/service-tool-specs.js";
import { triggeredSkills } from "../shared/turns/trigger-hook.js";
import { composeTurn } from "../shared/turns/turn-composer.js";
import { createTemplateRenderer } from "../shared/templates/sandboxed-template-renderer.js";
import { REPETITIONS } from "./bench-mode.js";
import { batchPercentiles, repeated, type BenchRow } from "./bench-table.js";
import { syntheticMessage, syntheticSkills, turnSnapshot } from "./compose-bench-helpers.js";

const AVAILABLE = 1000;
const ACTIVE = 10;
/** Turns per repetition: each row is the median of the repetitions' percentiles, p99 the 5th-slowest of a batch. */
const BATCH = 500;
/** As compose-bench.ts: enough turns that the optimizing compiler has settled. */
const WARM_UP = 2000;

/** Five sibling files per skill, the shape of an Agent Skills folder (frozen, as the loader hands them out). */
const filesOf = (i: number): readonly SkillFile[] =>
  Object.freeze(
    ["LICENSE.txt", "assets/template.docx", "references/api.md", "references/forms.md", "scripts/fill_form.py"].map((path, k) =>
      Object.freeze({ path, size: 512 * (k + 1) + i }),
    ),
  );

/**
 * compose-bench.ts's steady turn (trigger hook over every skill, composition of 10 active ones)
 * over 1 000 skills that each have 5 sibling files: each active skill's block ends with its file
 * listing and the turn carries `skill_read_file`. Render cache warm, the state of a warm Lambda.
 */
export async function benchComposeWithFiles(): Promise<BenchRow[]> {
  const listing: readonly ResolvedSkill[] = Object.freeze(syntheticSkills(AVAILABLE).map((skill, i) => ({ ...skill, files: filesOf(i) })));
  const messages = Array.from({ length: 300 }, (_, i) => syntheticMessage(2048, i + 1));
  const active = listing.filter((s) => s.body.includes("{%")).slice(0, ACTIVE);
  const snapshot = turnSnapshot(active);
  const engine = engineConfig("ford");
  const toolSpecs = new ServiceToolSpecs();
  const matcher = new SkillTriggerMatcher();
  const renderer = createTemplateRenderer();
  const turn = async (i: number): Promise<void> => {
    const message = messages[i % messages.length] as string;
    triggeredSkills(listing, snapshot, message, matcher);
    const byName = skillsByName(listing);
    await composeTurn(
      {
        turnId: `turn-${i}`,
        process: snapshot,
        definitions: new Map(snapshot.activeSkills.map((ref) => [ref.name, byName.get(ref.name)] as const)),
        recipe: undefined,
        engine,
        context: turnRenderContext(snapshot, undefined, { tier: "large", model: "model-large", provider: "bench" }),
        messages: [{ id: `m-${i}`, role: "user", sender: "bench", text: message, kind: "user", at: "2026-01-01T00:00:00.000Z" }],
        warnings: [],
      },
      { renderer, toolSpecs },
    );
  };
  for (let i = 0; i < WARM_UP; i++) await turn(i);
  const { p50, p99 } = await batchPercentiles(REPETITIONS, BATCH, (i) => turn(i));
  return [
    {
      metric: "composeturn_files_p50_ms_1000x5",
      ...repeated(p50),
      baseline: null,
      unit: "ms",
      note: `1 000 skills × 5 files, 10 active with file listings; ${BATCH} turns per repetition`,
    },
    {
      metric: "composeturn_files_p99_ms_1000x5",
      ...repeated(p99),
      baseline: null,
      unit: "ms",
      note: `target ≤ 1 ms; ${BATCH} turns per repetition`,
    },
  ];
}
