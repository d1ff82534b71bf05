// First: stack traces of the bundle are mapped to the sources, on demand (NODE_OPTIONS has no --enable-source-maps).
import "../_shared/source-mapped-stacks.js";
import { skillsAppFromEnv, runtimeFromEnv } from "../../shared/wiring/app-from-env.js";
import { sqsFromEnv } from "../../shared/wiring/sqs-from-env.js";
import { createTemplateRenderer } from "../../shared/templates/sandboxed-template-renderer.js";
import { httpHandler } from "../_shared/http-handler.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { traced } from "../_shared/tracing.js";
import { processesRoutes } from "./processes-routes.js";

// Module scope: built once per container. The composition preview renders skill bodies.
const { logger, activations, tracer } = powertoolsObservability("skills-http-processes");
const app = skillsAppFromEnv(runtimeFromEnv(process.env, { instrument: tracer.instrument, sqs: sqsFromEnv }), {
  renderer: createTemplateRenderer(),
  logger,
  activations,
});

export const handler = traced(tracer, "http-processes", httpHandler(processesRoutes({ app }), { logger }));
