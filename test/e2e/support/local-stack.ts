import { randomUUID } from "node:crypto";
import { startLocalStack as startStack } from "../../../infra/local/local-stack.js";
import type { LocalStack, LocalStackOptions } from "../../../infra/local/local-stack.js";
import type { LocalStackLogger } from "../../../infra/local/local-logger.js";

export type { LocalStack, LocalStackOptions, TokenIdentity } from "../../../infra/local/local-stack.js";
export type { HandlerOverrides, LambdaHandler } from "../../../infra/local/function-registry.js";

/** Quiet unless something breaks: a 500's cause stays visible in the test output. */
const errorsOnly: LocalStackLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: (message, detail) => console.error(`[local stack] ${message}`, detail ?? ""),
};

/**
 * The local stack for end-to-end tests: a free port on 127.0.0.1, in-memory emulators (or
 * AWS_ENDPOINT_URL, with resource names of its own), every real handler loaded up front unless
 * overridden, a short-polling lane. Drive it only over
 * `httpUrl` / `wsUrl`; `token(identity)` mints a token the authorizer accepts; `close()` in afterAll.
 * One stack per test file: handlers read their configuration from process.env at module scope.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  process.env.POWERTOOLS_LOG_LEVEL ??= "ERROR";
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  // Against a shared endpoint (LocalStack) parallel test files must not share a lane queue:
  // one file's poller would hand its messages to another file's handlers.
  const suffix = randomUUID().slice(0, 8);
  const isolated = process.env.AWS_ENDPOINT_URL
    ? {
        resourceNames: {
          tableName: `skills-e2e-${suffix}`,
          bucketName: `skills-e2e-${suffix}`,
          historyBucketName: `skills-e2e-${suffix}-history`,
          laneQueueBaseName: `skills-e2e-${suffix}`,
        },
      }
    : {};
  // Short polling, so close() need not wait out a one-second long poll.
  const lane = { waitTimeSeconds: 0, ...options.lane };
  return startStack({ port: 0, host: "127.0.0.1", logger: errorsOnly, ...isolated, ...options, lane });
}
