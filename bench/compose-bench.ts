import { readFileSync } from "node:fs";
import { engineConfig } from "../shared/recipes/engines.js";
import { parseRecipeDocument } from "../shared/recipes/recipe-document-parser.js";
import type { Recipe } from "../shared/recipes/recipe-schema.js";
import type { ResolvedSkill } from "../shared/skills/resolved-skill.js";
import { skillsByName } from "../shared/skills/skill-listing.js";
import { SkillTriggerMatcher } from "../shared/skills/triggers/skill-trigger-matcher.js";
import { TriggerPatternCache } from "../shared/skills/triggers/skill-trigger-pattern.js";
import { turnRenderContext } from "../shared/steering/render-context.js";
import { ServiceToolSpecs } from "../shared/turns/service-tool-specs.js";
import { triggeredSkills } from "../shared/turns/trigger-hook.js";
import { composeTurn } from "../shared/turns/turn-composer.js";
import { createTemplateRenderer } from "../shared/templates/sandboxed-template-renderer.js";
import type { TemplateRenderer } from "../shared/templates/template-renderer.js";
import { percentile, timeMany, type BenchRow } from "./bench-table.js";
import { buildCatalog, catalogFor } from "../shared/skills/skill-catalog.js";
import { syntheticMessage, syntheticSkills, turnSnapshot, type TurnProcess } from "./compose-bench-helpers.js";

const AVAILABLE = 1000;
const ACTIVE = 10;
/** Enough samples that p99 is the 20th-slowest turn, not one unlucky scheduler tick. */
const ROUNDS = 2000;
const COLD_ROUNDS = 40;
/**
 * Turns run before measuring, so the figures are a warm Lambda's (caches filled, JIT settled). On a
 * 2-core machine the optimizing compiler's background thread preempts the turn for a scheduler tick
 * (~4 ms) now and then until it has nothing left to compile: a few hundred turns were not enough.
 */
const WARM_UP = 2000;

function defaultRecipe(): Recipe {
  const text = readFileSync(new URL("../shared/bundled/_vance/recipes/default.yaml", import.meta.url), "utf8");
  const { recipe } = parseRecipeDocument("default", text, "_vance/recipes/default.yaml");
  if (recipe === undefined) throw new Error("the bundled default recipe does not parse");
  return { ...recipe, source: "RESOURCE", location: { source: "RESOURCE", project: "bundled" }, warnings: [] };
}

/**
 * In-process composition of one turn with the functions the lane worker runs (SkillTurnSupport
 * minus the process store): the trigger hook over every available skill for a 2 KB message, then
 * the composition of the 10 active skills (each rendered with its own args), tool union, manual
 * paths and tool specs. The listing is frozen, as the warm catalogue hands it out.
 * "cold" renders every body for the first time (render cache empty); "steady" is the same turn
 * again with the render cache warm, the state a warm Lambda is in.
 */
export async function benchCompose(): Promise<BenchRow[]> {
  const listing: readonly ResolvedSkill[] = Object.freeze(syntheticSkills(AVAILABLE));
  const messages = Array.from({ length: 300 }, (_, i) => syntheticMessage(2048, i + 1));
  // Every other synthetic skill is templated: take ten of them so the cold figure really renders.
  const active = listing.filter((s) => s.body.includes("{%")).slice(0, ACTIVE);
  const snapshot = turnSnapshot(active);
  const recipe = defaultRecipe();
  const engine = engineConfig("ford");
  const toolSpecs = new ServiceToolSpecs();

  // First: a matcher that has compiled nothing yet, over a pattern cache of its own.
  const first = (() => {
    const fresh = new SkillTriggerMatcher(new TriggerPatternCache());
    const start = process.hrtime.bigint();
    triggeredSkills(listing, snapshot, messages[0] as string, fresh);
    return Number(process.hrtime.bigint() - start) / 1e6;
  })();

  const matcher = new SkillTriggerMatcher();
  const renderer = createTemplateRenderer();
  await renderer.render("{{ 1 }}", {}); // start the sandbox pool: its boot is reported separately
  const turn = async (i: number, rendering: TemplateRenderer, tier: string, withCatalog = false): Promise<void> => {
    const message = messages[i % messages.length] as string;
    triggeredSkills(listing, snapshot, message, matcher);
    const byName = skillsByName(listing);
    await composeTurn(
      {
        turnId: `turn-${i}`,
        process: snapshot,
        definitions: new Map(snapshot.activeSkills.map((ref) => [ref.name, byName.get(ref.name)] as const)),
        recipe,
        engine,
        context: turnRenderContext(snapshot, recipe, { tier, model: "model-large", provider: "bench" }),
        messages: [{ id: `m-${i}`, role: "user", sender: "bench", text: message, kind: "user", at: "2026-01-01T00:00:00.000Z" }],
        warnings: [],
        ...(withCatalog ? { catalog: catalogOf(snapshot) } : {}),
      },
      { renderer: rendering, toolSpecs },
    );
  };

  // Cold: a distinct context per round misses the render cache, so every templated body renders.
  const cold = await timeMany(COLD_ROUNDS, (i) => turn(i, renderer, `cold-${i}`));
  for (let i = 0; i < WARM_UP; i++) await turn(i, renderer, "large");
  const steady = await timeMany(ROUNDS, (i) => turn(i, renderer, "large"));
  // The catalog as a turn gets it: memoized per listing and active set, so a steady turn looks it up.
  const catalogOf = (p: TurnProcess) =>
    catalogFor(listing, {
      budgetChars: engine?.catalogBudgetChars ?? 8_000,
      activeNames: p.activeSkills.map((s) => s.name),
      allowedSkills: p.allowedSkillsOverride,
    });
  for (let i = 0; i < WARM_UP; i++) await turn(i, renderer, "large", true);
  const steadyWithCatalog = await timeMany(ROUNDS, (i) => turn(i, renderer, "large", true));
  const big = Object.freeze(syntheticSkills(10_000));
  const catalogBuild = await timeMany(20, () => buildCatalog(big, { budgetChars: 8_000, activeNames: [], allowedSkills: null }));
  const matching = await timeMany(ROUNDS, (i) => triggeredSkills(listing, snapshot, messages[i % messages.length] as string, matcher));

  return [
    {
      metric: "composeturn_section_cold_p50_ms_1000",
      ours: percentile(cold, 50),
      baseline: null,
      unit: "ms",
      note: "10 active, every body rendered",
    },
    { metric: "composeturn_section_cold_p99_ms_1000", ours: percentile(cold, 99), baseline: null, unit: "ms" },
    {
      metric: "composeturn_section_p50_ms_1000",
      ours: percentile(steady, 50),
      baseline: null,
      unit: "ms",
      note: "trigger hook + composeTurn, render cache warm",
    },
    {
      metric: "composeturn_section_p99_ms_1000",
      ours: percentile(steady, 99),
      baseline: null,
      unit: "ms",
      note: `target ≤ 1 ms; ${ROUNDS} turns, GC pauses included`,
    },
    {
      metric: "composeturn_with_catalog_p99_ms_1000",
      ours: percentile(steadyWithCatalog, 99),
      baseline: null,
      unit: "ms",
      note: "steady turn + catalog of 990 candidates (memoized), target ≤ 1 ms",
    },
    {
      metric: "catalog_build_p50_ms_10000",
      ours: percentile(catalogBuild, 50),
      baseline: null,
      unit: "ms",
      note: "catalog of 10 000 candidates built from scratch (once per listing and active set)",
    },
    { metric: "trigger_match_p50_ms_1000", ours: percentile(matching, 50), baseline: null, unit: "ms", note: "trigger hook, 2 KB message" },
    { metric: "trigger_match_p99_ms_1000", ours: percentile(matching, 99), baseline: null, unit: "ms" },
    { metric: "trigger_match_first_ms_1000", ours: first, baseline: null, unit: "ms", note: "compiling every pattern and the index" },
  ];
}
