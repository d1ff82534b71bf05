import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The console's sources and its built assets (console/dist, gitignored). */
export const CONSOLE_ROOT = fileURLToPath(new URL("../../console/", import.meta.url));
export const CONSOLE_DIST = join(CONSOLE_ROOT, "dist");
const CLIENT_ROOT = fileURLToPath(new URL("../../client/", import.meta.url));

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce(
    (newest, entry) => (entry === "dist" || entry === "node_modules" ? newest : Math.max(newest, newestMtime(join(path, entry)))),
    0,
  );
}

/** True when console/dist is missing or older than a source of the console or of the client it bundles. */
export function consoleBuildIsStale(): boolean {
  const built = join(CONSOLE_DIST, "index.html");
  if (!existsSync(built)) return true;
  return Math.max(newestMtime(CONSOLE_ROOT), newestMtime(CLIENT_ROOT)) > statSync(built).mtimeMs;
}

/**
 * Builds the console once when its assets are missing or stale, so `npm start` stays fast on
 * every later start. Vite is loaded only then (it is a build tool, not part of the stack).
 */
export async function ensureConsoleBuilt(log: (line: string) => void = () => undefined): Promise<"fresh" | "built"> {
  if (!consoleBuildIsStale()) return "fresh";
  log("Console    building console/dist (sources changed or never built)…");
  const { build } = await import("vite");
  await build({ root: CONSOLE_ROOT, logLevel: "warn", configFile: join(CONSOLE_ROOT, "vite.config.ts") });
  return "built";
}
