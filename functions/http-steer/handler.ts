// First: stack traces of the bundle are mapped to the sources, on demand (NODE_OPTIONS has no --enable-source-maps).
import "../_shared/source-mapped-stacks.js";
import { skillsAppFromEnv, runtimeFromEnv } from "../../shared/wiring/app-from-env.js";
import { sqsFromEnv } from "../../shared/wiring/sqs-from-env.js";
import { httpHandler } from "../_shared/http-handler.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { traced } from "../_shared/tracing.js";
import { steerRoutes } from "./steer-routes.js";

// Module scope: built once per container. Only enqueues and waits: no documents, no sandbox.
const { logger, tracer } = powertoolsObservability("skills-http-steer");
const app = skillsAppFromEnv(runtimeFromEnv(process.env, { instrument: tracer.instrument, sqs: sqsFromEnv }), { logger });

export const handler = traced(tracer, "http-steer", httpHandler(steerRoutes({ app }), { logger }));
