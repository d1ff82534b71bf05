// First: stack traces of the bundle are mapped to the sources, on demand (NODE_OPTIONS has no --enable-source-maps).
import "../_shared/source-mapped-stacks.js";
import { skillsAppFromEnv, runtimeFromEnv } from "../../shared/wiring/app-from-env.js";
import { TemplateRendererOnFirstUse } from "../../shared/wiring/ports-on-first-use.js";
import { httpHandler } from "../_shared/http-handler.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { traced } from "../_shared/tracing.js";
import { processesRoutes } from "./processes-routes.js";

// Module scope: built once per container. The composition preview renders skill bodies. No SQS:
// nothing here enqueues (spawns and previews write DynamoDB; the stack grants no lane sends).
const { logger, activations, tracer } = powertoolsObservability("skills-http-processes");
const app = skillsAppFromEnv(runtimeFromEnv(process.env, { instrument: tracer.instrument }), {
  // The sandbox and nunjucks load with the first body that has template syntax; plain ones never need them.
  renderer: new TemplateRendererOnFirstUse(async () =>
    (await import("../../shared/templates/sandboxed-template-renderer.js")).createTemplateRenderer(),
  ),
  logger,
  activations,
});

export const handler = traced(tracer, "http-processes", httpHandler(processesRoutes({ app }), { logger }));
