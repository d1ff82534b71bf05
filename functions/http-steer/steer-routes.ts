import { assertNotEnded } from "../../shared/processes/process-lifecycle.js";
import * as z from "zod/mini";
import { CompleteBody, ComposeBody } from "../../contract/requests.js";
import type { SkillsApp } from "../../shared/app/skills-app.js";
import { parseJsonBody } from "../../shared/http/request.js";
import { route } from "../_shared/http-route.js";
import type { HttpRoute } from "../_shared/http-route.js";
import { laneReply } from "../_shared/lane-reply.js";
import { accessibleProcess } from "../_shared/process-access.js";

interface SteerRoutesDeps {
  app: Pick<SkillsApp, "getProcess" | "steerSkill" | "composeTurn" | "completeTurn" | "waitForRequest">;
}

/**
 * API.md "Steering": every change goes through the process lane; the answer is 202 QUEUED, or
 * with `Prefer: wait=N` the lane's result (lane-reply.ts). Nothing here renders: the lane
 * worker does, so this function ships no sandbox.
 */
export function steerRoutes({ app }: SteerRoutesDeps): HttpRoute[] {
  return [
    route("POST", "/brain/{tenant}/processes/{processId}/skill", async (request) => {
      // The process read here is the one the lane request is enqueued for: no second read.
      const process = await accessibleProcess(app, request, request.param("processId"));
      assertNotEnded(process);
      // The ProcessSkillRequest is validated by the domain (toLaneCommand), one rule for HTTP and WebSocket.
      const body = parseJsonBody(request.event, z.unknown());
      const accepted = await app.steerSkill(process.tenant, process.processId, request.user, body, process);
      return laneReply(app, process.tenant, process.processId, accepted, request);
    }),

    route("POST", "/brain/{tenant}/processes/{processId}/turns", async (request) => {
      const process = await accessibleProcess(app, request, request.param("processId"));
      assertNotEnded(process);
      const body = parseJsonBody(request.event, ComposeBody);
      const accepted = await app.composeTurn(process.tenant, process.processId, request.user, body, process);
      return laneReply(app, process.tenant, process.processId, accepted, request, { turnId: accepted.turnId });
    }),

    route("POST", "/brain/{tenant}/processes/{processId}/turns/{turnId}/complete", async (request) => {
      const process = await accessibleProcess(app, request, request.param("processId"));
      assertNotEnded(process);
      const body = parseJsonBody(request.event, CompleteBody);
      const accepted = await app.completeTurn(process.tenant, process.processId, request.user, request.param("turnId"), body, process);
      return laneReply(app, process.tenant, process.processId, accepted, request);
    }),
  ];
}
