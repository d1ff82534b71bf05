import { footRouterFromEnv, skillsAppFromEnv, runtimeFromEnv } from "../../shared/wiring/app-from-env.js";
import { laneModelActivation } from "../../shared/app/lane-model-activation.js";
import { SkillScriptRunner } from "../../shared/scripts/skill-script-runner.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";
import { createTemplateRenderer } from "../../shared/templates/sandboxed-template-renderer.js";
import { SERVICE_TOOLS } from "../../shared/tools/service-tools.js";
import { ToolInvoker } from "../../shared/tools/tool-invoker.js";
import { httpHandler } from "../_shared/http-handler.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { traced } from "../_shared/tracing.js";
import { toolsRoutes } from "./tools-routes.js";

// Module scope: built once per container. Whether a process has a tool now is decided by the
// turn a compose would produce now, which renders skill bodies. Skill scripts run in the same
// sandbox pool; FOOT scripts go to a subscribed WebSocket client when the stack gives this
// function the WebSocket API (otherwise they answer "foot routing not available").
const { logger, tracer } = powertoolsObservability("skills-http-tools");
const MODEL_ACTIVATION_WAIT_MS = 10_000;
const resources = runtimeFromEnv(process.env, { instrument: tracer.instrument });
const app = skillsAppFromEnv(resources, { renderer: createTemplateRenderer(), logger });
// The app's sources, warm catalogue included: a tool call reads skills and their file listings from it, not S3.
const sources = app.sources;
const tools = new ToolInvoker({
  sources,
  preview: (process, user) => app.turns.preview(process, undefined, undefined, user),
  tools: SERVICE_TOOLS,
  // skill_activate goes through the process lane and waits for it, like a steer with Prefer: wait.
  // Within the function's 15 s timeout, leaving time to render the skill's block.
  activation: laneModelActivation(app, { waitMs: MODEL_ACTIVATION_WAIT_MS }),
  scripts: new SkillScriptRunner({ loader: new SkillLoader(sources), documents: resources.documents, foot: footRouterFromEnv(resources, logger), logger }),
});

export const handler = traced(tracer, "http-tools", httpHandler(toolsRoutes({ app, tools }), { logger }));
