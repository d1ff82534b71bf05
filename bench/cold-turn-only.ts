import { formatTable } from "./bench-table.js";
import { benchColdTurn } from "./cold-turn-bench.js";

/** `npx tsx bench/cold-turn-only.ts [--quick]`: the cold first-turn row alone. */
console.log(formatTable(await benchColdTurn()));
process.exit(0);
