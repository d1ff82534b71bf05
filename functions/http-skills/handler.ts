import { skillsAppFromEnv, runtimeFromEnv } from "../../shared/runtime/app-from-env.js";
import { httpHandler } from "../_shared/http-handler.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { skillsRoutes } from "./skills-routes.js";

// Module scope: built once per container. Listing and resolving never render, so no sandbox here.
const { logger } = powertoolsObservability("skills-http-skills");
const app = skillsAppFromEnv(runtimeFromEnv(), { logger });

export const handler = httpHandler(skillsRoutes({ app }), { logger });
