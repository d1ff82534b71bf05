import { formatTable } from "./bench-table.js";
import { benchTurns } from "./turn-bench.js";

/**
 * `npx tsx bench/turn-only.ts [--table]`: the whole-turn rows (issue 31) as JSON on stdout, or as
 * a table. `npm run bench` runs it in its own process, like mcp-only.ts: the handler modules
 * keep their module-scope clients, so one local stack per process.
 */
const rows = await benchTurns();
process.stdout.write(process.argv.includes("--table") ? `${formatTable(rows)}\n` : JSON.stringify(rows));
process.exit(0);
