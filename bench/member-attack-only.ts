import { formatTable } from "./bench-table.js";
import { benchEvalsAttack, benchPlaceholderAttack } from "./member-attack-bench.js";

/** `npx tsx bench/member-attack-only.ts [--quick]`: issue 28's placeholder and evals attack rows alone, as a table. */
console.log(formatTable([...(await benchPlaceholderAttack()), ...(await benchEvalsAttack())]));
process.exit(0);
