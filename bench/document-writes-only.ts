import { formatTable } from "./bench-table.js";
import { benchDocumentWrites } from "./document-writes-bench.js";

/** `npx tsx bench/document-writes-only.ts [--quick]`: the PUT-at-level-size and push rows alone. */
console.log(formatTable(await benchDocumentWrites()));
process.exit(0);
