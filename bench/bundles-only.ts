import { formatTable } from "./bench-table.js";
import { benchBundles } from "./bundle-bench.js";

/** `npx tsx bench/bundles-only.ts [--quick]`: the bundle and cold-init rows alone, while working on init. */
console.log(formatTable(await benchBundles()));
