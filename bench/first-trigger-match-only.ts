import { firstTriggerMatchMs } from "./compose-bench.js";

/** `npx tsx bench/first-trigger-match-only.ts`: one fresh process's first trigger match, in ms (compose-bench.ts runs it per repetition). */
process.stdout.write(`${firstTriggerMatchMs()}\n`);
process.exit(0);
