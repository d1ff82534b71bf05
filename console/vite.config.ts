import preact from "@preact/preset-vite";
import { defineConfig } from "vite";

/**
 * The web console: served at /console/ by the local stack and by CloudFront when deployed, so
 * every asset URL is relative to that base. Everything is bundled (no CDN, no web fonts). The root
 * is this folder: infra/local/console-build.ts and `npm run build:console` pass it.
 */
export default defineConfig({
  base: "/console/",
  plugins: [preact()],
  // skills-service/client from its TypeScript source (package.json's `source` condition): the
  // console bundles what the checkout holds, built or not.
  resolve: { conditions: ["source", "module", "browser", "development|production"] },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 2048,
    rollupOptions: {
      // zod's sources carry esbuild-style pure annotations Rollup cannot place; it drops them,
      // harmlessly, and said so in ten lines on every `npm start` that built the console. Only that
      // code, only for dependencies: every other log (and any of our own code) still reaches Vite.
      // onLog, not onwarn: Vite 7 printed these past an onwarn filter.
      onLog: (level, log, handler) => {
        if (log.code === "INVALID_ANNOTATION" && (log.id ?? log.message).includes("node_modules")) return;
        handler(level, log);
      },
    },
  },
  logLevel: "warn",
});
