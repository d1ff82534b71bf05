import { laneModelActivation } from "../app/lane-model-activation.js";
import type { SkillsApp } from "../app/skills-app.js";
import { SkillScriptRunner } from "../scripts/skill-script-runner.js";
import { SkillLoader } from "../skills/skill-loader.js";
import { SERVICE_TOOLS } from "../tools/service-tools.js";
import { ToolInvoker } from "../tools/tool-invoker.js";
import { footRouterFromEnv } from "./foot-router-from-env.js";
import type { RuntimeResources } from "./app-from-env.js";

/** skill_activate waits for the lane within a 15 s function timeout, leaving time to render the skill's block. */
const MODEL_ACTIVATION_WAIT_MS = 10_000;

/**
 * The one tool invoker of the HTTP tools route and MCP's tools/call: whether a process has a tool
 * is the turn a compose would produce now; scripts run in the same sandbox pool; skill_activate
 * goes through the process lane and waits for it; FOOT scripts go to a subscribed WebSocket client
 * when the stack gives the function the WebSocket API (otherwise "foot routing not available").
 */
export function toolInvokerFromEnv(
  app: SkillsApp,
  resources: RuntimeResources,
  logger?: Parameters<typeof footRouterFromEnv>[1] & ConstructorParameters<typeof SkillScriptRunner>[0]["logger"],
): ToolInvoker {
  // The app's sources, warm catalogue included: a tool call reads skills and their file listings from it, not S3.
  const sources = app.sources;
  return new ToolInvoker({
    sources,
    preview: (process, user) => app.turns.preview(process, undefined, undefined, user),
    tools: SERVICE_TOOLS,
    activation: laneModelActivation(app, { waitMs: MODEL_ACTIVATION_WAIT_MS }),
    scripts: new SkillScriptRunner({
      loader: new SkillLoader(sources),
      documents: resources.documents,
      foot: footRouterFromEnv(resources, logger),
      logger,
    }),
  });
}
