import { skillsAppFromEnv, runtimeFromEnv } from "../../shared/wiring/app-from-env.js";
import { httpHandler } from "../_shared/http-handler.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { traced } from "../_shared/tracing.js";
import { skillsRoutes } from "./skills-routes.js";

// Module scope: built once per container. Listing and resolving never render, so no sandbox here.
const { logger, tracer } = powertoolsObservability("skills-http-skills");
const app = skillsAppFromEnv(runtimeFromEnv(process.env, { instrument: tracer.instrument }), { logger, levelSnapshotWrites: false });

export const handler = traced(tracer, "http-skills", httpHandler(skillsRoutes({ app }), { logger }));
