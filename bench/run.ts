import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { cpus, totalmem } from "node:os";
import { QUICK } from "./bench-mode.js";
import { formatTable, MIN_RUNS, rowsWithoutSpread, type BenchRow } from "./bench-table.js";
import { benchCompose } from "./compose-bench.js";
import { benchRelevance } from "./relevance-bench.js";
import { benchComposeWithFiles } from "./compose-files-bench.js";
import { benchBundles } from "./bundle-bench.js";
import { benchConsole } from "./console-bench.js";
import { benchCatalogue } from "./catalogue-bench.js";
import { benchHttp } from "./http-bench.js";
import { benchLanes } from "./lane-bench.js";
import { benchSandbox } from "./sandbox-bench.js";
import { benchScripts } from "./script-bench.js";
import { benchTriggerStorm } from "./trigger-storm-bench.js";
import { benchEvalsAttack, benchPlaceholderAttack } from "./member-attack-bench.js";
import { benchUsage } from "./usage-bench.js";

/** A section that starts its own local stack runs in a fresh process (see bench/mcp-only.ts). */
async function inChild(script: string): Promise<BenchRow[]> {
  const tsx = fileURLToPath(new URL("../node_modules/tsx/dist/cli.mjs", import.meta.url));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [tsx, fileURLToPath(new URL(script, import.meta.url)), ...process.argv.slice(2)],
    { maxBuffer: 16 * 1024 * 1024, timeout: 600_000 },
  );
  return JSON.parse(stdout) as BenchRow[];
}

/** `npm run bench`: every figure in one table, also written to bench/results.json. */
async function main(): Promise<void> {
  const rows: BenchRow[] = [];
  const section = async (name: string, run: () => Promise<BenchRow[]>): Promise<void> => {
    const started = Date.now();
    process.stderr.write(`bench: ${name}…`);
    rows.push(...(await run()));
    process.stderr.write(` ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  };

  await section("compose", benchCompose);
  await section("compose with files", benchComposeWithFiles);
  await section("relevance", benchRelevance);
  await section("catalogue", benchCatalogue);
  await section("usage counters", benchUsage);
  await section("trigger storm", benchTriggerStorm);
  await section("placeholder attack", benchPlaceholderAttack);
  await section("evals attack", benchEvalsAttack);
  await section("lanes", benchLanes);
  await section("http", benchHttp);
  await section("mcp", () => inChild("./mcp-only.ts"));
  await section("whole turn", () => inChild("./turn-only.ts"));
  await section("bundles", benchBundles);
  await section("console", benchConsole);
  await section("cold first turn", () => inChild("./cold-turn-only.ts"));
  await section("document writes", () => inChild("./document-writes-only.ts"));
  await section("sandbox", benchSandbox);
  await section("scripts", benchScripts);

  const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`;
  console.log(`machine: ${machine}\n`);
  console.log(formatTable(rows));
  mkdirSync(new URL(".", import.meta.url), { recursive: true });
  // --quick figures are for development: they never overwrite the committed results.
  const file = QUICK ? "./results.quick.json" : "./results.json";
  writeFileSync(
    new URL(file, import.meta.url),
    `${JSON.stringify(
      rows.map(({ metric, ours, baseline, unit, spread }) => ({ metric, ours, baseline, unit, ...(spread ? { spread } : {}) })),
      null,
      2,
    )}\n`,
  );
  // Written first, so a run is never lost; but a timing figure without its spread is one lucky (or unlucky) run.
  const single = rowsWithoutSpread(rows);
  if (single.length > 0) {
    console.error(`bench: ${single.length} timing row(s) without a spread of ${MIN_RUNS}+ repetitions: ${single.join(", ")}`);
    process.exit(1);
  }
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
