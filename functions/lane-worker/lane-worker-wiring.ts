import type { ClientInstrumentation } from "../../shared/aws/aws-clients.js";
import type { SkillsApp } from "../../shared/app/skills-app.js";
import type { ConfigEnvironment } from "../../shared/config/config.js";
import { createLaneWorkerHandler } from "../../shared/lanes/lane-worker.js";
import type { LaneWorkerHandler } from "../../shared/lanes/lane-worker.js";
import { createTemplateRenderer } from "../../shared/templates/sandboxed-template-renderer.js";
import { guardRunnerFromEnv } from "../../shared/wiring/guard-runner-from-env.js";
import { laneWorkerOptionsFromEnv, processEventsFromEnv, runtimeFromEnv, skillsAppFromEnv } from "../../shared/wiring/app-from-env.js";
import type { RuntimeResources } from "../../shared/wiring/app-from-env.js";
import type { Observability } from "../_shared/observability.js";
import { traced } from "../_shared/tracing.js";

export interface LaneWorkerFunction {
  handler: LaneWorkerHandler;
  app: SkillsApp;
  resources: RuntimeResources;
}

export interface LaneWorkerWiringOptions {
  /** Applied to every SDK client after the tracer's hook (the bench counts requests with it). */
  instrument?: ClientInstrumentation;
}

/**
 * The lane-worker function exactly as deployed: handler.ts calls this at module scope, and the
 * bench and the request-count test call it too, so what they measure is what ships. The lane
 * applies every change of a process: it renders, pushes results to WebSocket subscribers, and
 * counts skill activations (reported by the domain, no read of its own).
 */
export function laneWorkerFromEnv(
  env: ConfigEnvironment,
  observability: Observability,
  options: LaneWorkerWiringOptions = {},
): LaneWorkerFunction {
  const { logger, activations, tracer } = observability;
  const extra = options.instrument;
  const instrument: ClientInstrumentation = extra ? (client) => extra(tracer.instrument(client)) : tracer.instrument;
  const resources = runtimeFromEnv(env, { instrument });
  const app = skillsAppFromEnv(resources, {
    renderer: createTemplateRenderer(),
    // Completion guards run in the same sandbox as the templates.
    guard: guardRunnerFromEnv({ store: resources.documents, bundled: resources.bundled }, env, logger),
    events: processEventsFromEnv(resources, logger),
    logger,
    activations,
  });
  const handler = traced(
    tracer,
    "lane-worker",
    createLaneWorkerHandler(app.applyLaneMessage, { logger, ...laneWorkerOptionsFromEnv(resources) }),
  );
  return { handler, app, resources };
}
