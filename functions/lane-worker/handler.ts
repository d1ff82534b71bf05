import { guardRunnerFromEnv } from "../../shared/wiring/guard-runner-from-env.js";
import { createLaneWorkerHandler } from "../../shared/lanes/lane-worker.js";
import { laneWorkerOptionsFromEnv, processEventsFromEnv, runtimeFromEnv, skillsAppFromEnv } from "../../shared/wiring/app-from-env.js";
import { createTemplateRenderer } from "../../shared/templates/sandboxed-template-renderer.js";
import { laneActivationMetrics } from "../_shared/activation-metrics.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { traced } from "../_shared/tracing.js";

// Module scope: built once per container. The lane applies every change of a process: it
// renders, pushes results to WebSocket subscribers, and counts skill activations.
const { logger, activations, tracer } = powertoolsObservability("skills-lane-worker");
const resources = runtimeFromEnv(process.env, { instrument: tracer.instrument });
const metrics = laneActivationMetrics(activations, logger);
const app = skillsAppFromEnv(resources, {
  renderer: createTemplateRenderer(),
  // Completion guards run in the same sandbox as the templates.
  guard: guardRunnerFromEnv({ store: resources.documents, bundled: resources.bundled }, process.env, logger),
  events: processEventsFromEnv(resources, logger),
  logger,
  onApplied: metrics.onApplied,
});

export const handler = traced(tracer, "lane-worker", createLaneWorkerHandler(metrics.wrap(app), { logger, ...laneWorkerOptionsFromEnv(resources) }));
