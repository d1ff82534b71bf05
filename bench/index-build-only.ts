import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ResolvedSkill } from "../shared/skills/resolved-skill.js";
import { parseSkillDocument } from "../shared/skills/skill-document-parser.js";
import { searchTextOf } from "../shared/skills/skill-search-text.js";
import { RelevanceIndex } from "../shared/skills/relevance/relevance-index.js";
import { SkillTriggerMatcher } from "../shared/skills/triggers/skill-trigger-matcher.js";
import { isTriggerable } from "../shared/skills/triggers/trigger-activation.js";
import { capPatternTriggers } from "../shared/skills/triggers/trigger-caps.js";
import { memoizedRequiredLiterals, rememberRequiredLiterals } from "../shared/skills/triggers/pattern-prefilter.js";
import { rememberUnkeyedFacts, storedUnkeyedFacts } from "../shared/skills/triggers/unkeyed-pattern-facts.js";
import { NODE_TARGET } from "../infra/lambda-bundle.js";
import { syntheticSkills } from "./compose-bench-helpers.js";
import { attachFieldTerms, encodeLevelFieldTerms, LevelFieldTerms } from "../shared/skills/relevance/stored-field-terms.js";

/**
 * Issue 27: what a cold process pays to build the relevance index and the trigger index of a
 * listing, once, in a fresh Node process per run (the JIT as cold as a new Lambda instance's),
 * from an esbuild bundle like the Lambda's (tsx would wrap every closure in a naming helper).
 * Fixtures: `synthetic` (the cold-turn bench's skills, searchText derived as the parser does) and
 * `routing` (test/fixtures/routing's real-shaped skills under numbered names). Pattern literals
 * (and, for patterns without, their required characters and program size) are computed once by the
 * parent and installed by each run before timing, as a level snapshot installs them (so a run
 * compiles only the patterns its message may match). INDEX_BUILD_STORED_TERMS=1: every skill's
 * field terms are computed by the parent too and attached by each run, as a level snapshot's are
 * (stored-field-terms.ts), so the relevance build reads them instead of tokenizing.
 *
 *   npx tsx bench/index-build-only.ts [runs=5] [sizes=1000,10000]
 */
function routingSkills(root: string, n: number): ResolvedSkill[] {
  const base = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .flatMap((name) => {
      const path = join(root, name, "SKILL.md");
      const parsed = parseSkillDocument(name, readFileSync(path, "utf8"), path);
      return parsed.definition ? [{ ...(parsed.definition as ResolvedSkill), name, source: "PROJECT" as const }] : [];
    });
  return Array.from({ length: n }, (_, i) =>
    i < base.length ? base[i]! : { ...base[i % base.length]!, name: `${base[i % base.length]!.name}-${i}` },
  );
}

const skillsOf = (fixture: string, n: number, root: string): ResolvedSkill[] =>
  fixture === "routing" ? routingSkills(root, n) : syntheticSkills(n).map((s) => ({ ...s, searchText: searchTextOf(s.body, s.tools) }));

const patternsOf = (skills: readonly ResolvedSkill[]): string[] =>
  skills.flatMap((skill) => skill.triggers.flatMap((t) => (t.type === "PATTERN" ? [t.pattern] : [])));

function child(fixture: string, n: number, root: string, literalsFile: string): void {
  const listing = Object.freeze(skillsOf(fixture, n, root));
  const literals = JSON.parse(readFileSync(literalsFile, "utf8")) as Record<string, { literals: unknown; facts?: unknown }>;
  for (const pattern of patternsOf(listing)) {
    rememberRequiredLiterals(pattern, literals[pattern]?.literals);
    if (literals[pattern]?.facts !== undefined) rememberUnkeyedFacts(pattern, literals[pattern].facts);
  }
  const termsFile = `${literalsFile}.${fixture}.${n}.terms.json`;
  if (process.env.INDEX_BUILD_STORED_TERMS === "1") {
    const { dictionary, codes } = JSON.parse(readFileSync(termsFile, "utf8")) as { dictionary: string; codes: string[] };
    const level = new LevelFieldTerms(dictionary);
    listing.forEach((skill, i) => attachFieldTerms(skill, { level, code: codes[i]! }));
  }
  (globalThis as { gc?: () => void }).gc?.();
  const timed = (run: () => unknown): { wall: number; cpu: number } => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    run();
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    return { wall, cpu: (used.user + used.system) / 1000 };
  };
  // INDEX_BUILD_PHASES=0…4 runs only the first phases, to count instructions per phase (valgrind) by difference.
  const phases = Number(process.env.INDEX_BUILD_PHASES ?? 4);
  let relevanceIndex: RelevanceIndex | undefined;
  // As a turn builds it: over the listing with the per-level pattern caps applied (500 for a project level).
  const { patternsOff } = capPatternTriggers(listing);
  const matcher = new SkillTriggerMatcher();
  const relevance = timed(() => phases >= 1 && (relevanceIndex = RelevanceIndex.build(listing)));
  // The first turn's query and match: what the index left for its first use (typo look-up, packed postings).
  const relevanceQuery = timed(() => phases >= 2 && relevanceIndex?.scoreAll(TYPO_QUERY));
  const triggers = timed(() => phases >= 3 && matcher.indexFor(listing, patternsOff));
  const triggersMatch = timed(
    () =>
      phases >= 4 && matcher.triggered(listing, MESSAGE, { activeNames: [], allowedSkills: null, eligible: isTriggerable, patternsOff }),
  );
  process.stdout.write(JSON.stringify({ relevance, relevanceQuery, triggers, triggersMatch }));
}

/** The cold-turn bench's message; for the query, with a typo, so the first query pays for the typo look-up. */
const MESSAGE = "please review the deploy to staging";
const TYPO_QUERY = "please review the deplyo to staging";

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

if (process.argv[2] === "--child") child(process.argv[3]!, Number(process.argv[4]), process.argv[5]!, process.argv[6]!);
else {
  const runs = Number(process.argv[2] ?? 5);
  const sizes = (process.argv[3] ?? "1000,10000").split(",").map(Number);
  const root = fileURLToPath(new URL("../test/fixtures/routing/skills/", import.meta.url));
  // Inside the repository, so that the bundle's external packages resolve.
  mkdirSync(fileURLToPath(new URL("../node_modules/.cache/", import.meta.url)), { recursive: true });
  const dir = mkdtempSync(fileURLToPath(new URL("../node_modules/.cache/index-build-", import.meta.url)));
  const bundle = join(dir, "bench.mjs");
  const { build } = await import("esbuild");
  await build({
    entryPoints: [fileURLToPath(import.meta.url)],
    outfile: bundle,
    bundle: true,
    platform: "node",
    format: "esm",
    target: NODE_TARGET,
    external: ["esbuild"],
    banner: { js: "import { createRequire as benchRequire } from 'node:module'; const require = benchRequire(import.meta.url);" },
    logLevel: "error",
  });
  const literalsFile = join(dir, "literals.json");
  const literals: Record<string, { literals: unknown; facts?: unknown }> = {};
  for (const fixture of ["synthetic", "routing"])
    for (const pattern of patternsOf(skillsOf(fixture, Math.max(...sizes), root))) {
      const required = memoizedRequiredLiterals(pattern);
      literals[pattern] = required === undefined ? { literals: null, facts: storedUnkeyedFacts(pattern) } : { literals: required };
    }
  writeFileSync(literalsFile, JSON.stringify(literals));
  if (process.env.INDEX_BUILD_STORED_TERMS === "1")
    for (const fixture of ["synthetic", "routing"])
      for (const n of sizes)
        writeFileSync(`${literalsFile}.${fixture}.${n}.terms.json`, JSON.stringify(encodeLevelFieldTerms(skillsOf(fixture, n, root))));
  for (const fixture of ["synthetic", "routing"])
    for (const n of sizes) {
      type Timing = { wall: number; cpu: number };
      type Run = Record<"relevance" | "relevanceQuery" | "triggers" | "triggersMatch", Timing>;
      const samples = Array.from({ length: runs }, () => {
        const out = execFileSync(process.execPath, ["--expose-gc", bundle, "--child", fixture, String(n), root, literalsFile], {
          encoding: "utf8",
        });
        return JSON.parse(out) as Run;
      });
      // The machine may be shared: the least disturbed run (min wall) and the median of the process CPU time (all threads).
      const ms = (value: number): string => value.toFixed(1).padStart(6);
      const figure = (label: string, phase: keyof Run): string => {
        const timings = samples.map((sample) => sample[phase]);
        return `${label} wall min ${ms(Math.min(...timings.map((t) => t.wall)))} cpu med ${ms(median(timings.map((t) => t.cpu)))} ms`;
      };
      const row = [
        `${fixture.padEnd(9)} ${String(n).padStart(6)}`,
        figure("RelevanceIndex.build", "relevance"),
        figure("first query", "relevanceQuery"),
        figure("SkillTriggerIndex", "triggers"),
        figure("first match", "triggersMatch"),
      ];
      console.log(row.join("  |  "));
    }
  // INDEX_BUILD_KEEP=1 keeps the bundle and literals, to profile one run by hand (`node --cpu-prof <bundle> --child …`).
  if (process.env.INDEX_BUILD_KEEP === "1") console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
