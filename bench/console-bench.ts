import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { CONSOLE_DIST, ensureConsoleBuilt } from "../infra/local/console-build.js";
import type { BenchRow } from "./bench-table.js";

/** The web console's production bundle as `build:console` writes it (the assets the local stack and CloudFront serve). */
export async function benchConsole(): Promise<BenchRow[]> {
  await ensureConsoleBuilt();
  const assets = join(CONSOLE_DIST, "assets");
  const files = readdirSync(assets).map((name) => join(assets, name));
  const js = files.filter((f) => f.endsWith(".js"));
  const css = files.filter((f) => f.endsWith(".css"));
  const kb = (list: string[]): number => list.reduce((sum, f) => sum + statSync(f).size, 0) / 1024;
  const gzipKb = (list: string[]): number => list.reduce((sum, f) => sum + gzipSync(readFileSync(f)).length, 0) / 1024;
  return [
    {
      metric: "console_bundle_js_kb",
      ours: kb(js),
      baseline: null,
      unit: "KB",
      note: `console/dist/assets, minified; ${gzipKb(js).toFixed(0)} KB gzipped (CodeMirror 6, preact, zod)`,
    },
    { metric: "console_bundle_css_kb", ours: kb(css), baseline: null, unit: "KB", note: "console/dist/assets, minified" },
  ];
}
