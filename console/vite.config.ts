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
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 2048,
    rollupOptions: {
      // zod's sources carry esbuild-style pure annotations Rollup cannot place; it drops them, harmlessly.
      onwarn: (warning, warn) => (warning.code === "INVALID_ANNOTATION" ? undefined : warn(warning)),
    },
  },
  logLevel: "warn",
});
