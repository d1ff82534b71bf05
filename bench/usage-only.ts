import { formatTable } from "./bench-table.js";
import { benchUsage } from "./usage-bench.js";

/** `npx tsx bench/usage-only.ts`: the usage-counter rows alone, as a table (issue 17). */
console.log(formatTable(await benchUsage()));
process.exit(0);
