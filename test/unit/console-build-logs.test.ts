import type { RollupLog } from "rollup";
import { describe, expect, it } from "vitest";
import config from "../../console/vite.config.js";

/** The console build's log filter (console/vite.config.ts), as Vite hands it every Rollup log. */
function passes(level: "warn" | "info", log: RollupLog): boolean {
  const onLog = (
    config as {
      build?: { rollupOptions?: { onLog?: (level: string, log: RollupLog, handler: (l: string, r: RollupLog) => void) => void } };
    }
  ).build?.rollupOptions?.onLog;
  if (!onLog) throw new Error("console/vite.config.ts has no rollupOptions.onLog");
  let passed = false;
  onLog(level, log, () => {
    passed = true;
  });
  return passed;
}

describe("console build logs (npm start builds the console)", () => {
  it("drops Rollup's notes about comments it cannot place in a dependency (zod's), and nothing else", () => {
    // Act / Assess
    expect(
      passes("warn", {
        code: "INVALID_ANNOTATION",
        id: "/repo/node_modules/zod/v4/core/util.js",
        message: "A comment … contains an annotation that Rollup cannot interpret",
      }),
    ).toBe(false);
    expect(passes("warn", { code: "INVALID_ANNOTATION", id: "/repo/console/src/app.tsx", message: "A comment … in our own code" })).toBe(
      true,
    );
    expect(passes("warn", { code: "UNRESOLVED_IMPORT", id: "/repo/node_modules/x/index.js", message: "Could not resolve" })).toBe(true);
    expect(passes("info", { code: "PLUGIN_LOG", message: "built" })).toBe(true);
  });
});
