import { skillsAppFromEnv, runtimeFromEnv } from "../../shared/runtime/app-from-env.js";
import { httpHandler } from "../_shared/http-handler.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { steerRoutes } from "./steer-routes.js";

// Module scope: built once per container. Only enqueues and waits: no documents, no sandbox.
const { logger } = powertoolsObservability("skills-http-steer");
const app = skillsAppFromEnv(runtimeFromEnv(), { logger });

export const handler = httpHandler(steerRoutes({ app }), { logger });
