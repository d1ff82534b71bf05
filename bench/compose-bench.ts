import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
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
import { REPETITIONS } from "./bench-mode.js";
import { batchPercentiles, percentile, repeated, timeMany, type BenchRow } from "./bench-table.js";
import { buildCatalog, catalogFor } from "../shared/skills/skill-catalog.js";
import { syntheticMessage, syntheticSkills, turnSnapshot, type TurnProcess } from "./compose-bench-helpers.js";

const AVAILABLE = 1000;
const ACTIVE = 10;
/** Turns per repetition of a warm row: its p99 is the 5th-slowest turn, not one unlucky scheduler tick. */
const BATCH = 500;
/** Cold turns per repetition: p99 is the 2nd-slowest of them. */
const COLD_BATCH = 100;
/** Catalog builds per repetition (~5-10 ms each). */
const CATALOG_BUILDS = 20;
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

/** A fresh matcher's first trigger hook over a fresh listing: what `trigger_match_first_ms_1000` times once per process (first-trigger-match-only.ts). */
export function firstTriggerMatchMs(): number {
  const listing: readonly ResolvedSkill[] = Object.freeze(syntheticSkills(AVAILABLE));
  const snapshot = turnSnapshot(listing.filter((s) => s.body.includes("{%")).slice(0, ACTIVE));
  const message = syntheticMessage(2048, 1);
  const fresh = new SkillTriggerMatcher(new TriggerPatternCache());
  const start = process.hrtime.bigint();
  triggeredSkills(listing, snapshot, message, fresh);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * A fresh process per repetition: pattern literals and facts are memoized per process
 * (pattern-prefilter.ts, unkeyed-pattern-facts.ts) and the JIT warms up, so a second matcher in
 * the same process would not compile what a new instance's first match does.
 */
async function firstTriggerMatchInChild(): Promise<number> {
  const tsx = fileURLToPath(new URL("../node_modules/tsx/dist/cli.mjs", import.meta.url));
  const script = fileURLToPath(new URL("./first-trigger-match-only.ts", import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, [tsx, script], {
    timeout: 120_000,
  });
  return Number(stdout.trim());
}

/**
 * In-process composition of one turn with the functions the lane worker runs (SkillTurnSupport
 * minus the process store): the trigger hook over every available skill for a 2 KB message, then
 * the composition of the 10 active skills (each rendered with its own args), tool union, manual
 * paths and tool specs. The listing is frozen, as the warm catalogue hands it out.
 * "cold" renders every body for the first time (render cache empty); "steady" is the same turn
 * again with the render cache warm, the state a warm Lambda is in.
 * Each timing row is the median of its repetitions' figures, with their spread; a percentile row's
 * repetition is one batch of samples, the percentile taken per batch.
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

  const first: number[] = [];
  for (let r = 0; r < REPETITIONS; r++) first.push(await firstTriggerMatchInChild());

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
  // Each repetition on a renderer of its own (the shared sandbox pool already booted): its
  // compiled-template cache starts empty too, as a new instance's does.
  const cold = { p50: [] as number[], p99: [] as number[] };
  for (let r = 0; r < REPETITIONS; r++) {
    const fresh = createTemplateRenderer();
    const samples = await timeMany(COLD_BATCH, (i) => turn(i, fresh, `cold-${r}-${i}`));
    cold.p50.push(percentile(samples, 50));
    cold.p99.push(percentile(samples, 99));
  }
  for (let i = 0; i < WARM_UP; i++) await turn(i, renderer, "large");
  const steady = await batchPercentiles(REPETITIONS, BATCH, (i) => turn(i, renderer, "large"));
  // The catalog as a turn gets it: memoized per listing and active set, so a steady turn looks it up.
  const catalogOf = (p: TurnProcess) =>
    catalogFor(listing, {
      budgetChars: engine?.catalogBudgetChars ?? 8_000,
      activeNames: p.activeSkills.map((s) => s.name),
      allowedSkills: p.allowedSkillsOverride,
    });
  for (let i = 0; i < WARM_UP; i++) await turn(i, renderer, "large", true);
  const steadyWithCatalog = await batchPercentiles(REPETITIONS, BATCH, (i) => turn(i, renderer, "large", true));
  const big = Object.freeze(syntheticSkills(10_000));
  const catalogBuild = await batchPercentiles(REPETITIONS, CATALOG_BUILDS, () =>
    buildCatalog(big, { budgetChars: 8_000, activeNames: [], allowedSkills: null }),
  );
  const matching = await batchPercentiles(REPETITIONS, BATCH, (i) =>
    triggeredSkills(listing, snapshot, messages[i % messages.length] as string, matcher),
  );

  const perRun = (count: number, what: string): string => `${count} ${what} per repetition`;
  return [
    {
      metric: "composeturn_section_cold_p50_ms_1000",
      ...repeated(cold.p50),
      baseline: null,
      unit: "ms",
      note: `10 active, every body rendered; ${perRun(COLD_BATCH, "turns")}, each on a new renderer`,
    },
    {
      metric: "composeturn_section_cold_p99_ms_1000",
      ...repeated(cold.p99),
      baseline: null,
      unit: "ms",
      note: `${perRun(COLD_BATCH, "turns")}, each on a new renderer`,
    },
    {
      metric: "composeturn_section_p50_ms_1000",
      ...repeated(steady.p50),
      baseline: null,
      unit: "ms",
      note: `trigger hook + composeTurn, render cache warm; ${perRun(BATCH, "turns")}`,
    },
    {
      metric: "composeturn_section_p99_ms_1000",
      ...repeated(steady.p99),
      baseline: null,
      unit: "ms",
      note: `target ≤ 1 ms; ${perRun(BATCH, "turns")}, GC pauses included`,
    },
    {
      metric: "composeturn_with_catalog_p99_ms_1000",
      ...repeated(steadyWithCatalog.p99),
      baseline: null,
      unit: "ms",
      note: `steady turn + catalog of 990 candidates (memoized), target ≤ 1 ms; ${perRun(BATCH, "turns")}`,
    },
    {
      metric: "catalog_build_p50_ms_10000",
      ...repeated(catalogBuild.p50),
      baseline: null,
      unit: "ms",
      note: `catalog of 10 000 candidates built from scratch (once per listing and active set); ${perRun(CATALOG_BUILDS, "builds")}`,
    },
    {
      metric: "trigger_match_p50_ms_1000",
      ...repeated(matching.p50),
      baseline: null,
      unit: "ms",
      note: `trigger hook, 2 KB message; ${perRun(BATCH, "matches")}`,
    },
    { metric: "trigger_match_p99_ms_1000", ...repeated(matching.p99), baseline: null, unit: "ms", note: perRun(BATCH, "matches") },
    {
      metric: "trigger_match_first_ms_1000",
      ...repeated(first),
      baseline: null,
      unit: "ms",
      note: "compiling every pattern and the index; each repetition a fresh process",
    },
  ];
}
