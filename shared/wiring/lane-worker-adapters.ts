/*
 * What the lane worker builds on first use (sqs-on-first-use.ts, lane-worker-from-env.ts,
 * guard-runner-from-env.ts, its wiring), in one module: every `import()` target is a chunk of its
 * own, and every distinct set of importers splits the modules loaded at init into one more chunk.
 * Four targets made 13 files load at init instead of 5, ~3-5 ms more init CPU than one target.
 */
export { createApiGatewayConnectionPush } from "../connections/apigateway-connection-push.js";
export { createTemplateRenderer } from "../templates/sandboxed-template-renderer.js";
export { sandboxedGuardRunner } from "./sandboxed-guard-runner-from-config.js";
export { sqsWithDeadLetterFromEnv } from "./sqs-from-env.js";
