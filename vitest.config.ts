import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * `skills-service/client` is the TypeScript source in tests (package.json's `source` condition),
 * not the build in dist/client: a test never runs against a stale build.
 */
const resolve = { alias: { "skills-service/client": fileURLToPath(new URL("./client/index.ts", import.meta.url)) } };

export default defineConfig({
  test: {
    projects: [
      {
        resolve,
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          testTimeout: 20_000,
        },
      },
      {
        resolve,
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          globalSetup: ["test/support/emulators.global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve,
        test: {
          // CDK assertions on the synthesized stack; one test bundles every function for real.
          name: "infra",
          include: ["test/infra/**/*.test.ts"],
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
      {
        resolve,
        test: {
          // The local stack over real HTTP and WebSocket; each file starts its own stack.
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
