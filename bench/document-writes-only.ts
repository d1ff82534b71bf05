import { formatTable } from "./bench-table.js";
import { benchDocumentWrites } from "./document-writes-bench.js";

/**
 * `npx tsx bench/document-writes-only.ts [--quick]`: the PUT-at-level-size and push rows, as JSON
 * on stdout (`npm run bench` runs it in its own process, like mcp-only.ts) and as a table on stderr.
 */
const rows = await benchDocumentWrites();
process.stderr.write(`${formatTable(rows)}\n`);
process.stdout.write(JSON.stringify(rows));
process.exit(0);
