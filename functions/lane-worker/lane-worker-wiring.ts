import type { ClientInstrumentation } from "../../shared/aws/aws-clients.js";
import type { SkillsApp } from "../../shared/app/skills-app.js";
import type { ConfigEnvironment } from "../../shared/config/config.js";
import { createLaneWorkerHandler } from "../../shared/lanes/lane-worker.js";
import type { LaneWorkerHandler } from "../../shared/lanes/lane-worker.js";
import { guardRunnerFromEnv } from "../../shared/wiring/guard-runner-from-env.js";
import { TemplateRendererOnFirstUse } from "../../shared/wiring/ports-on-first-use.js";
import { sqsOnFirstUse } from "../../shared/wiring/sqs-on-first-use.js";
import { runtimeFromEnv, skillsAppFromEnv } from "../../shared/wiring/app-from-env.js";
import { laneWorkerOptionsFromEnv, processEventsFromEnv } from "../../shared/wiring/lane-worker-from-env.js";
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
 * counts skill activations (reported by the domain, no read of its own). What a composed turn
 * without template bodies does not touch is loaded on first use (the sandbox, the guard runner,
 * SQS, the WebSocket management API): infra/lambda-bundle.ts, LAZY_IN_FUNCTION.
 */
export function laneWorkerFromEnv(
  env: ConfigEnvironment,
  observability: Observability,
  options: LaneWorkerWiringOptions = {},
): LaneWorkerFunction {
  const { logger, activations, tracer } = observability;
  const extra = options.instrument;
  const instrument: ClientInstrumentation = extra ? (client) => extra(tracer.instrument(client)) : tracer.instrument;
  const resources = runtimeFromEnv(env, { instrument, sqs: sqsOnFirstUse });
  const app = skillsAppFromEnv(resources, {
    renderer: new TemplateRendererOnFirstUse(async () =>
      (await import("../../shared/wiring/lane-worker-adapters.js")).createTemplateRenderer(),
    ),
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
