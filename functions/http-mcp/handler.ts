import { laneModelActivation } from "../../shared/app/lane-model-activation.js";
import { SkillScriptRunner } from "../../shared/scripts/skill-script-runner.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";
import { createTemplateRenderer } from "../../shared/templates/sandboxed-template-renderer.js";
import { SERVICE_TOOLS } from "../../shared/tools/service-tools.js";
import { ToolInvoker } from "../../shared/tools/tool-invoker.js";
import { footRouterFromEnv, runtimeFromEnv, skillsAppFromEnv } from "../../shared/wiring/app-from-env.js";
import { httpHandler } from "../_shared/http-handler.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { traced } from "../_shared/tracing.js";
import { mcpRoutes } from "./mcp-routes.js";

// Module scope: built once per container, as http-tools builds its invoker (the same tools, lane
// and sandbox), so an MCP tools/call is the HTTP tools route by another protocol.
const { logger, tracer } = powertoolsObservability("skills-http-mcp");
const MODEL_ACTIVATION_WAIT_MS = 10_000;
const resources = runtimeFromEnv(process.env, { instrument: tracer.instrument });
const renderer = createTemplateRenderer();
const app = skillsAppFromEnv(resources, { renderer, logger });
const tools = new ToolInvoker({
  sources: app.sources,
  preview: (process, user) => app.turns.preview(process, undefined, undefined, user),
  tools: SERVICE_TOOLS,
  activation: laneModelActivation(app, { waitMs: MODEL_ACTIVATION_WAIT_MS }),
  scripts: new SkillScriptRunner({ loader: new SkillLoader(app.sources), documents: resources.documents, foot: footRouterFromEnv(resources, logger), logger }),
});

export const handler = traced(tracer, "http-mcp", httpHandler(mcpRoutes({ app, renderer, tools }), { logger }));
