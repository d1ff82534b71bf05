import { benchMcp } from "./mcp-bench.js";

/**
 * `npx tsx bench/mcp-only.ts`: the MCP rows as JSON on stdout. `npm run bench` runs it in its own
 * process: the local stack's handler modules keep their module-scope clients, so a second stack
 * in the process that ran the http section would reach that section's stopped emulators.
 */
process.stdout.write(JSON.stringify(await benchMcp()));
process.exit(0);
