import * as z from "zod/mini";
import { RequestId } from "../../contract/common.js";
import { SpawnBody, TurnContext } from "../../contract/requests.js";
import type { Closed, Turn as ApiTurn } from "../../contract/index.js";
import type { SkillsApp } from "../../shared/app/skills-app.js";
import { assertProjectAccess, canAccessProject, isProcessContentReader } from "../../shared/auth/authorization.js";
import { describeZodIssues } from "../../shared/http/zod-issues.js";
import { parseJsonBody } from "../../shared/http/request.js";
import { jsonResponse } from "../../shared/http/response.js";
import { InvalidRequest } from "../../shared/errors.js";
import { RequestNotFound, TurnNotFound } from "../../shared/processes/process-errors.js";
import { MAX_TURN_ID_LENGTH } from "../../shared/processes/turn-ids.js";
import { toApiProcess, toProcessMetadata } from "../../shared/processes/process.js";
import { toApiRequest } from "../../shared/processes/request-store.js";
import { route } from "../_shared/http-route.js";
import type { HttpRequest, HttpRoute } from "../_shared/http-route.js";
import { accessibleProcess } from "../_shared/process-access.js";

interface ProcessesRoutesDeps {
  app: Pick<SkillsApp, "spawn" | "sessionProcesses" | "getProcess" | "getRequest" | "getTurn" | "turns">;
}

const CONTEXT_FIELDS = ["tier", "model", "provider", "lang", "profile"] as const;

/** `?tier=…&model=…` etc.: what the engine would pass as the turn context of a real compose. */
function previewContext(request: HttpRequest): TurnContext | undefined {
  const given = Object.fromEntries(
    CONTEXT_FIELDS.flatMap((field) => {
      const value = request.query(field);
      return value === undefined ? [] : [[field, value]];
    }),
  );
  if (Object.keys(given).length === 0) return undefined;
  const parsed = z.safeParse(TurnContext, given);
  if (!parsed.success) throw new InvalidRequest(`Invalid turn context: ${describeZodIssues(parsed.error)}`);
  return parsed.data;
}

/** `&explain=all` (API.md "Explainable activation"); any other value is a mistake worth saying. */
function previewExplain(request: HttpRequest): "all" | undefined {
  const explain = request.query("explain");
  if (explain === undefined) return undefined;
  if (explain !== "all") throw new InvalidRequest("explain must be 'all'");
  return "all";
}

/** API.md "Processes", request status and the composition preview (which renders, hence the sandbox). */
export function processesRoutes({ app }: ProcessesRoutesDeps): HttpRoute[] {
  return [
    route("POST", "/brain/{tenant}/sessions/{sessionId}/processes", async (request) => {
      const body = parseJsonBody(request.event, SpawnBody);
      assertProjectAccess(request.identity, body.projectId);
      const process = await app.spawn(request.identity.tenant, request.user, { sessionId: request.param("sessionId"), ...body });
      return jsonResponse(201, toApiProcess(process), {
        location: `/brain/${encodeURIComponent(process.tenant)}/processes/${encodeURIComponent(process.processId)}`,
      });
    }),

    // The caller's own: the store keys sessions by user, so nobody lists another user's session.
    route("GET", "/brain/{tenant}/sessions/{sessionId}/processes", async (request) => {
      const processes = await app.sessionProcesses(request.identity.tenant, request.user, request.param("sessionId"));
      // A process of a project the caller has left is not hers to use any more (assertProcessOwner).
      const usable = processes.filter((p) => p.userId === request.identity.login && canAccessProject(request.identity, p.projectId));
      return jsonResponse(200, { processes: usable.map((p) => toApiProcess(p)) });
    }),

    route("GET", "/brain/{tenant}/processes/{processId}", async (request) => {
      const process = await accessibleProcess(app, request, request.param("processId"), "metadata");
      // An admin who is not the owner sees that the process exists and what state it is in, not what its texts say.
      return jsonResponse(200, isProcessContentReader(request.identity, process) ? toApiProcess(process) : toProcessMetadata(process));
    }),

    route("GET", "/brain/{tenant}/processes/{processId}/requests/{requestId}", async (request) => {
      const process = await accessibleProcess(app, request, request.param("processId"));
      const requestId = request.param("requestId");
      // A requestId no producer could have used is unknown without a lookup; ids are scoped to the process.
      const record = RequestId.safeParse(requestId).success
        ? await app.getRequest(process.tenant, process.processId, requestId)
        : undefined;
      if (!record || record.processId !== process.processId) throw new RequestNotFound(requestId.slice(0, 256));
      return jsonResponse(200, toApiRequest(record));
    }),

    // API.md "Explainable activation": the Turn as it was composed, kept with its compose request.
    route("GET", "/brain/{tenant}/processes/{processId}/turns/{turnId}", async (request) => {
      const process = await accessibleProcess(app, request, request.param("processId"));
      const turnId = request.param("turnId");
      const turn = turnId.length <= MAX_TURN_ID_LENGTH ? await app.getTurn(process.tenant, process.processId, turnId) : undefined;
      if (!turn) throw new TurnNotFound(turnId.slice(0, 256));
      return jsonResponse(200, turn satisfies Closed<ApiTurn>);
    }),

    route("GET", "/brain/{tenant}/processes/{processId}/composition", async (request) => {
      const process = await accessibleProcess(app, request, request.param("processId"));
      const turn = await app.turns.preview(process, request.query("message"), previewContext(request), request.user, {
        explain: previewExplain(request),
      });
      return jsonResponse(200, turn satisfies Closed<ApiTurn>);
    }),
  ];
}
