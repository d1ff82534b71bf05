import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ResolvedSkill } from "../shared/skills/resolved-skill.js";
import { parseSkillDocument } from "../shared/skills/skill-document-parser.js";
import { searchTextOf } from "../shared/skills/skill-search-text.js";
import { RelevanceIndex } from "../shared/skills/relevance/relevance-index.js";
import { SkillTriggerIndex } from "../shared/skills/triggers/skill-trigger-index.js";
import { memoizedRequiredLiterals, rememberRequiredLiterals } from "../shared/skills/triggers/pattern-prefilter.js";
import { NODE_TARGET } from "../infra/lambda-bundle.js";
import { syntheticSkills } from "./compose-bench-helpers.js";

/**
 * Issue 27: what a cold process pays to build the relevance index and the trigger index of a
 * listing, once, in a fresh Node process per run (the JIT as cold as a new Lambda instance's),
 * from an esbuild bundle like the Lambda's (tsx would wrap every closure in a naming helper).
 * Fixtures: `synthetic` (the cold-turn bench's skills, searchText derived as the parser does) and
 * `routing` (test/fixtures/routing's real-shaped skills under numbered names). Pattern literals are
 * computed once by the parent and installed by each run before timing, as a level snapshot
 * installs them (so no run compiles a regex).
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
      return parsed.definition ? [{ ...(parsed.definition as ResolvedSkill), name }] : [];
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
  const literals = JSON.parse(readFileSync(literalsFile, "utf8")) as Record<string, unknown>;
  for (const pattern of patternsOf(listing)) rememberRequiredLiterals(pattern, literals[pattern]);
  (globalThis as { gc?: () => void }).gc?.();
  const timed = (run: () => unknown): { wall: number; cpu: number } => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    run();
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    return { wall, cpu: (used.user + used.system) / 1000 };
  };
  // INDEX_BUILD_PHASES=none|relevance (default both): to count instructions per phase (valgrind) by difference.
  const phases = process.env.INDEX_BUILD_PHASES ?? "both";
  const relevance = timed(() => phases !== "none" && RelevanceIndex.build(listing));
  const triggers = timed(() => phases === "both" && new SkillTriggerIndex(listing));
  process.stdout.write(JSON.stringify({ relevance, triggers }));
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

if (process.argv[2] === "--child") child(process.argv[3]!, Number(process.argv[4]), process.argv[5]!, process.argv[6]!);
else {
  const runs = Number(process.argv[2] ?? 5);
  const sizes = (process.argv[3] ?? "1000,10000").split(",").map(Number);
  const root = fileURLToPath(new URL("../test/fixtures/routing/skills/", import.meta.url));
  // Inside the repository, so that the bundle's external packages resolve.
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
  const literals: Record<string, unknown> = {};
  for (const fixture of ["synthetic", "routing"])
    for (const pattern of patternsOf(skillsOf(fixture, Math.max(...sizes), root)))
      literals[pattern] = memoizedRequiredLiterals(pattern) ?? null;
  writeFileSync(literalsFile, JSON.stringify(literals));
  for (const fixture of ["synthetic", "routing"])
    for (const n of sizes) {
      type Timing = { wall: number; cpu: number };
      const samples = Array.from({ length: runs }, () => {
        const out = execFileSync(process.execPath, ["--expose-gc", bundle, "--child", fixture, String(n), root, literalsFile], {
          encoding: "utf8",
        });
        return JSON.parse(out) as { relevance: Timing; triggers: Timing };
      });
      // The machine may be shared: the least disturbed run (min wall) and the process CPU time (median, all threads).
      const figure = (timings: Timing[]): string =>
        `wall min ${Math.min(...timings.map((t) => t.wall))
          .toFixed(1)
          .padStart(6)} med ${median(timings.map((t) => t.wall))
          .toFixed(1)
          .padStart(6)}` +
        ` cpu med ${median(timings.map((t) => t.cpu))
          .toFixed(1)
          .padStart(6)} ms`;
      console.log(
        `${fixture.padEnd(9)} ${String(n).padStart(6)}  RelevanceIndex.build ${figure(samples.map((s) => s.relevance))}` +
          `  |  SkillTriggerIndex ${figure(samples.map((s) => s.triggers))}`,
      );
    }
  // INDEX_BUILD_KEEP=1 keeps the bundle and literals, to profile one run by hand (`node --cpu-prof <bundle> --child …`).
  if (process.env.INDEX_BUILD_KEEP === "1") console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
