import { ToolBody } from "../../contract/requests.js";
import type { SkillsApp } from "../../shared/app/skills-app.js";
import { parseJsonBody } from "../../shared/http/request.js";
import { jsonResponse } from "../../shared/http/response.js";
import type { ToolInvoker } from "../../shared/tools/tool-invoker.js";
import { route } from "../_shared/http-route.js";
import type { HttpRoute } from "../_shared/http-route.js";
import { accessibleProcess } from "../_shared/process-access.js";

interface ToolsRoutesDeps {
  app: Pick<SkillsApp, "getProcess">;
  tools: Pick<ToolInvoker, "invoke">;
}

/** API.md `POST …/tools/{toolName}`; which tools exist and what they do is ToolInvoker's. */
export function toolsRoutes({ app, tools }: ToolsRoutesDeps): HttpRoute[] {
  return [
    route("POST", "/brain/{tenant}/processes/{processId}/tools/{toolName}", async (request) => {
      const process = await accessibleProcess(app, request, request.param("processId"));
      const { args } = parseJsonBody(request.event, ToolBody);
      const outcome = await tools.invoke(process, request.user, request.param("toolName"), args ?? {});
      // Script tools add their vance.log trace beside the API.md `result`.
      return jsonResponse(200, {
        result: outcome.result ?? null,
        ...(outcome.logs !== undefined ? { logs: outcome.logs } : {}),
        ...(outcome.droppedLogs !== undefined ? { droppedLogs: outcome.droppedLogs } : {}),
      });
    }),
  ];
}
