import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { ResolvedSkill } from "../shared/skills/resolved-skill.js";
import { catalogFor, DEFAULT_CATALOG_BUDGET_CHARS } from "../shared/skills/skill-catalog.js";
import { parseSkillDocument } from "../shared/skills/skill-document-parser.js";
import { listingRelevance } from "../shared/skills/relevance/listing-relevance.js";
import { searchSkills } from "../shared/skills/relevance/skill-search.js";
import { REPETITIONS } from "./bench-mode.js";
import { percentile, repeated, timeMany, type BenchRow } from "./bench-table.js";

/**
 * Issue 26: the relevance-ranked catalog and skill_search, in process, through the functions the
 * turn (catalogFor) and the tool and route (searchSkills) call. The skills are the routing
 * fixture's (test/fixtures/routing: real-shaped <product>-automation and document skills), parsed
 * by the service's parser so each carries its `searchText`, repeated under distinct names up to
 * 1 000 and 10 000; the queries are the fixture's 237 user requests. The listing is frozen, as the
 * warm catalogue hands it out, and its index is built before timing (once per listing; its build
 * time is a row of its own, over REPETITIONS new listings). Each timing row is the median of its
 * runs' figures (a percentile per batch of samples), with their spread.
 */
const FIXTURE = new URL("../test/fixtures/routing/", import.meta.url).pathname;
const REPEATS = 3;
const WARM_UP = 200;
/** 100 KB queries per repetition (~2-8 ms each): p99 is the slowest but one. */
const HUGE_QUERIES = 100;

function fixtureSkills(): ResolvedSkill[] {
  const root = join(FIXTURE, "skills");
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .flatMap((name) => {
      const path = join(root, name, "SKILL.md");
      const parsed = parseSkillDocument(name, readFileSync(path, "utf8"), path);
      if (!parsed.definition) return [];
      return [
        {
          ...parsed.definition,
          source: "PROJECT" as const,
          location: { source: "PROJECT" as const, project: "bench", directory: `_vance/skills/${name}` },
          referenceDocs: [],
          warnings: [],
        },
      ];
    });
}

function requests(): string[] {
  const text = readFileSync(join(FIXTURE, "requests.yaml"), "utf8");
  return [...text.matchAll(/^- message: (".*")$/gm)].map((m) => JSON.parse(m[1]!) as string);
}

/** n skills: the fixture's, then copies under numbered names (same texts: the index sees realistic terms). */
function listingOf(base: readonly ResolvedSkill[], n: number): readonly ResolvedSkill[] {
  return Object.freeze(
    Array.from({ length: n }, (_, i) =>
      i < base.length ? base[i]! : { ...base[i % base.length]!, name: `${base[i % base.length]!.name}-${i}` },
    ),
  );
}

export async function benchRelevance(): Promise<BenchRow[]> {
  const base = fixtureSkills();
  const messages = requests();
  const rows: BenchRow[] = [];
  for (const n of [1_000, 10_000]) {
    // Each repetition a new listing (the index is memoized per listing identity), built as a warm
    // instance rebuilds after a level change: only the section's first build also pays for the JIT
    // and the process-wide word memo (a cold process's build: bench/index-build-only.ts).
    const built: number[] = [];
    let listing: readonly ResolvedSkill[] = [];
    for (let r = 0; r < REPETITIONS; r++) {
      const fresh = listingOf(base, n);
      built.push(...(await timeMany(1, () => listingRelevance(fresh))));
      listing = fresh;
    }
    const options = (i: number) => ({
      budgetChars: DEFAULT_CATALOG_BUDGET_CHARS,
      activeNames: [],
      allowedSkills: null,
      query: messages[i % messages.length]!,
    });
    await timeMany(WARM_UP, (i) => catalogFor(listing, options(i)));
    const catalogP99: number[] = [];
    for (let r = 0; r < REPEATS; r++)
      catalogP99.push(percentile(await timeMany(messages.length * 2, (i) => catalogFor(listing, options(i))), 99));
    rows.push({
      metric: `catalog_relevance_p99_ms_${n}`,
      ...repeated(catalogP99),
      baseline: null,
      unit: "ms",
      note: `catalogFor ranked by relevance to one of ${messages.length} user requests over ${n} real-shaped skills (default budget); target ≤ ${n >= 10_000 ? 10 : 2} ms`,
    });
    rows.push({
      metric: `relevance_index_build_ms_${n}`,
      ...repeated(built),
      baseline: null,
      unit: "ms",
      note: "once per listing (memoized per listing identity): tokenizing and packing every skill's fields; a new listing per repetition",
    });
    if (n === 10_000) {
      await timeMany(WARM_UP, (i) => searchSkills(listing, messages[i % messages.length]!, { limit: 5 }));
      const searchP99: number[] = [];
      for (let r = 0; r < REPEATS; r++)
        searchP99.push(
          percentile(await timeMany(messages.length * 2, (i) => searchSkills(listing, messages[i % messages.length]!, { limit: 5 })), 99),
        );
      rows.push({
        metric: "skill_search_p99_ms_10000",
        ...repeated(searchP99),
        baseline: null,
        unit: "ms",
        note: "searchSkills (skill_search and GET …/skills/search), limit 5; target ≤ 10 ms",
      });
      const huge = "x".repeat(50_000) + " slack message " + "y ".repeat(25_000);
      const hugeP99: number[] = [];
      for (let r = 0; r < REPETITIONS; r++)
        hugeP99.push(percentile(await timeMany(HUGE_QUERIES, () => searchSkills(listing, huge, { limit: 20 })), 99));
      rows.push({
        metric: "skill_search_100kb_query_p99_ms_10000",
        ...repeated(hugeP99),
        baseline: null,
        unit: "ms",
        note: `a 100 KB query: read as its first and last 4 KB; ${HUGE_QUERIES} queries per repetition`,
      });
    }
  }
  return rows;
}
