import { skillsAppFromEnv, runtimeFromEnv } from "../../shared/runtime/app-from-env.js";
import { createTemplateRenderer } from "../../shared/templates/sandboxed-template-renderer.js";
import { httpHandler } from "../_shared/http-handler.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { processesRoutes } from "./processes-routes.js";

// Module scope: built once per container. The composition preview renders skill bodies.
const { logger, activations } = powertoolsObservability("skills-http-processes");
const app = skillsAppFromEnv(runtimeFromEnv(), { renderer: createTemplateRenderer(), logger });

export const handler = httpHandler(processesRoutes({ app, activations }), { logger });
