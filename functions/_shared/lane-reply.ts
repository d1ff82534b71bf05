import type { Accepted, SkillsApp } from "../../shared/app/skills-app.js";
import { isErrorCode, statusForCode } from "../../shared/http/error-table.js";
import { INTERNAL_ERROR_MESSAGE } from "../../shared/http/error-response.js";
import { parsePreferWait } from "../../shared/http/prefer-wait.js";
import { jsonResponse } from "../../shared/http/response.js";
import type { AuthenticatedRequest, HttpReply } from "./http-route.js";

/** Time kept back from Lambda's deadline so a waiting call still answers 202 instead of timing out. */
const WAIT_SAFETY_MS = 1500;

/** How long this call may wait for the lane: `Prefer: wait=N` (≤ 20 s), bounded by what Lambda leaves us. */
function waitBudgetMs(request: AuthenticatedRequest): number {
  const seconds = parsePreferWait(request.header("prefer"));
  if (seconds === undefined || seconds <= 0) return 0;
  const remaining = request.remainingTimeMs();
  const wanted = seconds * 1000;
  return remaining === undefined ? wanted : Math.max(0, Math.min(wanted, remaining - WAIT_SAFETY_MS));
}

/**
 * API.md steering answers. Without a wait: 202 with the request's status (QUEUED, or already
 * DONE/FAILED when a requestId is repeated). With `Prefer: wait=N`: 200 with the result, the
 * request's error with its status from the error table, or 202 QUEUED when the lane took longer.
 * `extra` (e.g. the turnId of a compose) is added to the 202 and 200 bodies.
 */
export async function laneReply(
  app: Pick<SkillsApp, "waitForRequest">,
  tenant: string,
  processId: string,
  accepted: Accepted,
  request: AuthenticatedRequest,
  extra: Record<string, string> = {},
): Promise<HttpReply> {
  const budget = waitBudgetMs(request);
  if (budget === 0) return jsonResponse(202, { requestId: accepted.requestId, status: accepted.status, ...extra });

  const record = await app.waitForRequest(tenant, processId, accepted.requestId, budget, { waiter: request.identity.login });
  // The error body has no room for the requestId (API.md error shape), so it travels as a header on every waited answer.
  const applied = { "preference-applied": `wait=${Math.ceil(budget / 1000)}`, "skills-request-id": accepted.requestId };
  if (record?.status === "DONE")
    return jsonResponse(200, { requestId: record.requestId, status: "DONE", ...extra, result: record.result ?? null }, applied);
  if (record?.status === "FAILED") {
    const code = record.error?.code;
    // The lane records domain errors only; anything else would be a bug and must not leak.
    if (!isErrorCode(code) || code === "INTERNAL")
      return jsonResponse(500, { error: { code: "INTERNAL", message: INTERNAL_ERROR_MESSAGE } }, applied);
    return jsonResponse(statusForCode(code), { error: { code, message: record.error?.message ?? code } }, applied);
  }
  return jsonResponse(202, { requestId: accepted.requestId, status: "QUEUED", ...extra }, applied);
}
