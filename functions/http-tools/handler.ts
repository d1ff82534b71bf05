import { skillsAppFromEnv, runtimeFromEnv } from "../../shared/runtime/app-from-env.js";
import { createTemplateRenderer } from "../../shared/templates/sandboxed-template-renderer.js";
import { SERVICE_TOOLS } from "../../shared/tools/service-tools.js";
import { ToolInvoker } from "../../shared/tools/tool-invoker.js";
import { httpHandler } from "../_shared/http-handler.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { toolsRoutes } from "./tools-routes.js";

// Module scope: built once per container. Whether a process has a tool now is decided by the
// turn a compose would produce now, which renders skill bodies.
const { logger } = powertoolsObservability("skills-http-tools");
const resources = runtimeFromEnv();
const app = skillsAppFromEnv(resources, { renderer: createTemplateRenderer(), logger });
const tools = new ToolInvoker({
  sources: { store: resources.documents, bundled: resources.bundled },
  preview: (process, user) => app.turns.preview(process, undefined, undefined, user),
  tools: SERVICE_TOOLS,
});

export const handler = httpHandler(toolsRoutes({ app, tools }), { logger });
