import { formatTable } from "./bench-table.js";
import { benchCatalogue } from "./catalogue-bench.js";

/** `npx tsx bench/catalogue-only.ts [--quick]`: the request-count and flat-cost rows alone. */
console.log(formatTable(await benchCatalogue()));
process.exit(0);
