// First: stack traces of the bundle are mapped to the sources, on demand (NODE_OPTIONS has no --enable-source-maps).
import "../_shared/source-mapped-stacks.js";
import { createTemplateRenderer } from "../../shared/templates/sandboxed-template-renderer.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";
import { SkillManifests } from "../../shared/skills/skill-manifests.js";
import { documentDigestsFromEnv, runtimeFromEnv, skillsAppFromEnv } from "../../shared/wiring/app-from-env.js";
import { sqsFromEnv } from "../../shared/wiring/sqs-from-env.js";
import { toolInvokerFromEnv } from "../../shared/wiring/tool-invoker-from-env.js";
import { httpHandler } from "../_shared/http-handler.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { traced } from "../_shared/tracing.js";
import { mcpRoutes } from "./mcp-routes.js";

// Module scope: built once per container, with the tools route's invoker (the same tools, lane
// and sandbox), so an MCP tools/call is the HTTP tools route by another protocol.
const { logger, tracer } = powertoolsObservability("skills-http-mcp");
const resources = runtimeFromEnv(process.env, { instrument: tracer.instrument, sqs: sqsFromEnv });
const renderer = createTemplateRenderer();
const app = skillsAppFromEnv(resources, { renderer, logger });
const tools = toolInvokerFromEnv(app, resources, logger);
const manifests = new SkillManifests({ loader: new SkillLoader(app.sources), digests: documentDigestsFromEnv(resources) });

export const handler = traced(tracer, "http-mcp", httpHandler(mcpRoutes({ app, renderer, tools, manifests }), { logger }));
