import { formatTable } from "./bench-table.js";
import { benchRelevance } from "./relevance-bench.js";

/** `npx tsx bench/relevance-only.ts`: the relevance rows alone (issue 26). */
console.log(formatTable(await benchRelevance()));
process.exit(0);
