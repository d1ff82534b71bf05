import { powertoolsObservability } from "../functions/_shared/observability.js";
import { laneWorkerFromEnv } from "../functions/lane-worker/lane-worker-wiring.js";
import type { LaneWorkerFunction } from "../functions/lane-worker/lane-worker-wiring.js";
import { applyEnvironment, localEnvironment } from "../infra/local/local-environment.js";
import type { RunningEmulators } from "../infra/local/local-emulators.js";
import type { AwsCredentials, LocalResources } from "../infra/local/local-resources.js";
import type { AwsRequestCounter } from "../test/support/aws-request-counter.js";

export interface ShippedLaneWorker extends LaneWorkerFunction {
  /** Puts process.env back as it was. */
  restore(): void;
}

/**
 * The lane-worker function as deployed (functions/lane-worker/lane-worker-wiring.ts, the factory
 * its handler module calls), on the environment the local stack gives it, with `counter` on every
 * SDK client. The WebSocket callback URL points where nothing listens: like a deployed worker it
 * looks up a process's subscribers after each request, and with none it pushes nothing.
 */
export function shippedLaneWorker(input: {
  emulators: RunningEmulators;
  resources: LocalResources;
  region: string;
  credentials: AwsCredentials;
  counter: AwsRequestCounter;
}): ShippedLaneWorker {
  const restore = applyEnvironment({
    ...localEnvironment({ ...input, managementEndpoint: "http://127.0.0.1:9", jwtSecret: "bench-secret" }),
    POWERTOOLS_LOG_LEVEL: "SILENT",
  });
  const worker = laneWorkerFromEnv(process.env, powertoolsObservability("skills-lane-worker"), {
    instrument: (client) => input.counter.instrument(client),
  });
  return { ...worker, restore };
}
