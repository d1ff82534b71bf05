// First: stack traces of the bundle are mapped to the sources, on demand (NODE_OPTIONS has no --enable-source-maps).
import "../_shared/source-mapped-stacks.js";
import { skillsAppFromEnv, runtimeFromEnv } from "../../shared/wiring/app-from-env.js";
import { sqsFromEnv } from "../../shared/wiring/sqs-from-env.js";
import { toolInvokerFromEnv } from "../../shared/wiring/tool-invoker-from-env.js";
import { createTemplateRenderer } from "../../shared/templates/sandboxed-template-renderer.js";
import { httpHandler } from "../_shared/http-handler.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { traced } from "../_shared/tracing.js";
import { toolsRoutes } from "./tools-routes.js";

// Module scope: built once per container. Whether a process has a tool now is decided by the
// turn a compose would produce now, which renders skill bodies (tool-invoker-from-env.ts).
const { logger, tracer } = powertoolsObservability("skills-http-tools");
const resources = runtimeFromEnv(process.env, { instrument: tracer.instrument, sqs: sqsFromEnv });
const app = skillsAppFromEnv(resources, { renderer: createTemplateRenderer(), logger });
const tools = toolInvokerFromEnv(app, resources, logger);

export const handler = traced(tracer, "http-tools", httpHandler(toolsRoutes({ app, tools }), { logger }));
