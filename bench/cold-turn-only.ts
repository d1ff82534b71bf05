import { formatTable } from "./bench-table.js";
import { benchColdTurn } from "./cold-turn-bench.js";

/**
 * `npx tsx bench/cold-turn-only.ts [--quick]`: the cold first-turn rows, as JSON on stdout and as a
 * table on stderr. `npm run bench` runs it in its own process: the emulators a cold instance
 * talks to run in this process's event loop, and in the process that ran the sections before
 * (10 000-skill catalogues, a browser) their answers waited on that process's garbage collector.
 */
const rows = await benchColdTurn();
process.stderr.write(`${formatTable(rows)}\n`);
process.stdout.write(JSON.stringify(rows));
process.exit(0);
