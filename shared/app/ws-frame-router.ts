import { assertNotEnded } from "../processes/process-lifecycle.js";
import { assertSameRequest, requestFingerprint } from "../steering/lane-requests.js";
import { parseLanePayload } from "../lanes/lane-payloads.js";
import { randomUUID } from "node:crypto";
import type { SkillsApp } from "./skills-app.js";
import { assertProcessAccess, assertProcessMetadataAccess, assertProjectAccess, isProcessContentReader } from "../auth/authorization.js";
import { laneUserOf } from "../auth/identity.js";
import type { Identity } from "../auth/identity.js";
import { InvalidRequest } from "../errors.js";
import { errorResponse } from "../http/error-response.js";
import { toActiveSkillMetadata } from "../processes/process.js";
import type { ActiveSkillMetadata, ActiveSkillRef, Process } from "../processes/process.js";
import type { RequestRecord } from "../processes/request-store.js";
import { toSkillSummary } from "../skills/skill-summary.js";
import type { SkillSummary } from "../skills/skill-summary.js";
import { MAX_FRAME_BYTES } from "../connections/frame-size.js";
import { toLaneCommand } from "../steering/process-skill-request.js";
import { TooManySubscriptions } from "../connections/connection-errors.js";
import type { ConnectionPush } from "../connections/connection-push.js";
import { MAX_SUBSCRIPTIONS_PER_CONNECTION } from "../connections/connection-store.js";
import type { ConnectionStore } from "../connections/connection-store.js";
import { errorFrame } from "../connections/server-frames.js";
import type { ProcessSkillResultFrame, ServerFrame, SkillListResultFrame } from "../connections/server-frames.js";
import { parseClientFrame } from "../connections/ws-frames.js";
import type { ProcessSkillFrame, ProcessSkillScriptResultFrame, ProcessSubscribeFrame, SkillListFrame } from "../connections/ws-frames.js";
import type { Logger } from "../support/logger.js";

export interface WsFrameRouterDeps {
  /** With `footInvocations`, the router accepts Foot clients' `process-skill-script-result` answers. */
  app: Pick<SkillsApp, "getProcess" | "getRequest" | "steerSkill" | "listEffective"> & Partial<Pick<SkillsApp, "footInvocations">>;
  connections: ConnectionStore;
  push: ConnectionPush;
  /** requestIds for `process-skill` frames without one. */
  newRequestId?: () => string;
  logger?: Pick<Logger, "error">;
}

/** Who sent the frame (identity from the authorizer context) and on which connection. */
export interface WsCaller {
  identity: Identity;
  connectionId: string;
  /** The token's `exp` (epoch seconds): subscriptions end with it, so no push outlives the token. */
  tokenExpiresAt?: number | undefined;
}

export type WsFrameRouter = (caller: WsCaller, body: string | undefined | null, options?: { isBase64Encoded?: boolean }) => Promise<void>;

const resultFrame = (processId: string, record: RequestRecord): ProcessSkillResultFrame => ({
  type: "process-skill-result",
  requestId: record.requestId,
  processId,
  status: record.status,
  ...(record.status === "DONE" ? { result: record.result } : {}),
  ...(record.error ? { error: { code: record.error.code, message: record.error.message } } : {}),
});

/**
 * Answers one client frame by pushing frames back to the caller's connection (API Gateway
 * WebSockets have no reply channel in the integration response). A frame that cannot be
 * accepted — bad JSON, unknown type, invalid fields, not allowed — gets an `error` frame and
 * the connection stays open. Authorization is the HTTP API's, cell for cell.
 *
 * `process-skill` answers at once with `process-skill-result {status:"QUEUED"}` (the HTTP 202
 * body: the client learns the requestId, also one the service chose), sent BEFORE the request
 * reaches the lane, so the final DONE/FAILED for that requestId — pushed to every subscriber of
 * the process when the lane finishes — can never arrive before it. A request that then fails to
 * enqueue is answered FAILED under the same requestId. A requestId already settled is answered
 * with its stored result, not applied again.
 */
/** A page's JSON stays below this, leaving room under the 128 KB frame limit for what the push adds. */
const SKILL_LIST_PAGE_BYTES = MAX_FRAME_BYTES - 8_000;

const encodeCursor = (name: string): string => Buffer.from(JSON.stringify({ after: name }), "utf8").toString("base64url");

function decodeCursor(cursor: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (typeof parsed === "object" && parsed !== null && typeof (parsed as { after?: unknown }).after === "string")
      return (parsed as { after: string }).after;
  } catch {
    // answered below
  }
  throw new InvalidRequest("Invalid skill-list cursor; send the nextCursor of a skill-list-result");
}

/**
 * One page of the name-sorted skills after `cursor`, as many as fit the frame limit, with
 * `nextCursor` when more follow: a long list is paged, never cut (API.md, second round). The
 * cursor names the last skill sent, so a skill saved between pages shifts nothing.
 */
function skillListPage(
  base: Omit<SkillListResultFrame, "skills">,
  skills: SkillSummary[],
  cursor: string | undefined,
): SkillListResultFrame {
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  const remaining = after === undefined ? skills : skills.filter((skill) => skill.name > after);
  const page: SkillSummary[] = [];
  let bytes = Buffer.byteLength(JSON.stringify({ ...base, skills: [], nextCursor: encodeCursor("x".repeat(256)) }), "utf8");
  for (const skill of remaining) {
    const size = Buffer.byteLength(JSON.stringify(skill), "utf8") + 1;
    // At least one skill per page, or a client could never get past a huge one (the push then shrinks it).
    if (page.length > 0 && bytes + size > SKILL_LIST_PAGE_BYTES) break;
    page.push(skill);
    bytes += size;
  }
  const last = page.at(-1);
  return {
    ...base,
    skills: page,
    ...(page.length < remaining.length && last !== undefined ? { nextCursor: encodeCursor(last.name) } : {}),
  };
}

export function createWsFrameRouter(deps: WsFrameRouterDeps): WsFrameRouter {
  const newRequestId = deps.newRequestId ?? randomUUID;
  const logger = deps.logger ?? console;

  /** `owner` for anything that steers or receives the process's content (API.md "Processes belong to their user"). */
  const authorizedProcess = async (identity: Identity, processId: string, access: "owner" | "metadata" = "owner"): Promise<Process> => {
    // The caller's own tenant: another tenant's process is simply not found.
    const process = await deps.app.getProcess(identity.tenant, processId);
    if (access === "metadata") assertProcessMetadataAccess(identity, process);
    else assertProcessAccess(identity, process);
    return process;
  };

  const ensureSubscribed = async (caller: WsCaller, processId: string): Promise<void> => {
    const tenant = caller.identity.tenant;
    const current = await deps.connections.subscriptionsOf(tenant, caller.connectionId);
    if (!current.includes(processId) && current.length >= MAX_SUBSCRIPTIONS_PER_CONNECTION) {
      throw new TooManySubscriptions(MAX_SUBSCRIPTIONS_PER_CONNECTION);
    }
    // Also when already subscribed: renews the subscription's expiry.
    await deps.connections.subscribe(
      tenant,
      caller.connectionId,
      processId,
      caller.tokenExpiresAt === undefined ? {} : { notAfter: caller.tokenExpiresAt },
    );
  };

  const errorBody = (error: unknown, context: Record<string, unknown>) => {
    const { statusCode, body } = errorResponse(error);
    if (statusCode >= 500) logger.error("WebSocket frame failed", { ...context, error });
    return body.error;
  };

  const processSkill = async (
    caller: WsCaller,
    frame: ProcessSkillFrame,
    reply: (frame: ServerFrame) => Promise<unknown>,
  ): Promise<void> => {
    const { type: _type, processId, ...request } = frame;
    const { tenant } = caller.identity;
    const command = toLaneCommand(request);
    const process = await authorizedProcess(caller.identity, processId);
    assertNotEnded(process);
    await ensureSubscribed(caller, processId);

    const requestId = request.requestId ?? newRequestId();
    if (request.requestId !== undefined) {
      const existing = await deps.app.getRequest(tenant, processId, requestId);
      if (existing)
        assertSameRequest(existing, command.kind, requestFingerprint(command.kind, parseLanePayload(command.kind, command.payload)));
      if (existing && existing.status !== "QUEUED") {
        await reply(resultFrame(processId, existing));
        return;
      }
    }

    await reply({ type: "process-skill-result", requestId, processId, status: "QUEUED" });
    try {
      await deps.app.steerSkill(tenant, processId, laneUserOf(caller.identity), { ...request, requestId }, process);
    } catch (error) {
      const { code, message } = errorBody(error, { type: frame.type, processId, requestId });
      await reply({ type: "process-skill-result", requestId, processId, status: "FAILED", error: { code, message } });
    }
  };

  const processSubscribe = async (
    caller: WsCaller,
    frame: ProcessSubscribeFrame,
    reply: (frame: ServerFrame) => Promise<unknown>,
  ): Promise<void> => {
    await authorizedProcess(caller.identity, frame.processId);
    await ensureSubscribed(caller, frame.processId);
    await reply({
      type: "process-subscribed",
      processId: frame.processId,
      ...(frame.requestId === undefined ? {} : { requestId: frame.requestId }),
    });
  };

  const skillList = async (caller: WsCaller, frame: SkillListFrame, reply: (frame: ServerFrame) => Promise<unknown>): Promise<void> => {
    const { identity } = caller;
    assertProjectAccess(identity, frame.projectId);
    let active: (ActiveSkillRef | ActiveSkillMetadata)[] = [];
    if (frame.processId !== undefined) {
      const process = await authorizedProcess(identity, frame.processId, "metadata");
      if (process.projectId !== frame.projectId) {
        throw new InvalidRequest(`Process '${frame.processId}' belongs to another project than '${frame.projectId}'`);
      }
      // The owner's args stay hers: an admin learns which skills are active, not with what.
      active = isProcessContentReader(identity, process) ? process.activeSkills : process.activeSkills.map(toActiveSkillMetadata);
    }
    // What a user may pick (`/skill list`): `user-invocable: false` is the model's alone (API.md); the effective list shows it.
    const skills = (await deps.app.listEffective(identity.tenant, laneUserOf(identity), frame.projectId))
      .filter((skill) => skill.userInvocable)
      .map(toSkillSummary);
    const base = {
      type: "skill-list-result" as const,
      projectId: frame.projectId,
      ...(frame.processId === undefined ? {} : { processId: frame.processId }),
      ...(frame.requestId === undefined ? {} : { requestId: frame.requestId }),
      active,
    };
    await reply(skillListPage(base, skills, frame.cursor));
  };

  /**
   * A Foot client's answer to a FOOT script: stored for the invoking function, which polls it.
   * Accepted once, and only from the connection the script was pushed to (the tenant comes from
   * the caller's identity, so another tenant's invocation is not even found). Nothing is sent
   * back on success; a refused answer gets an `error` frame.
   */
  const scriptResult = async (caller: WsCaller, frame: ProcessSkillScriptResultFrame): Promise<void> => {
    const store = deps.app.footInvocations;
    if (store === undefined) throw new InvalidRequest("This service does not accept FOOT script results");
    const logs = frame.logs === undefined ? {} : { logs: frame.logs };
    const answer =
      frame.error !== undefined
        ? { status: "FAILED" as const, error: { code: frame.error.code ?? "SCRIPT_ERROR", message: frame.error.message }, ...logs }
        : { status: "DONE" as const, result: frame.result ?? null, ...logs };
    const accepted = await store.answer(caller.identity.tenant, frame.invocationId, caller.connectionId, answer);
    if (!accepted) {
      throw new InvalidRequest(
        `Invocation '${frame.invocationId.slice(0, 80)}' is unknown, expired, already answered, or was not sent to this connection`,
      );
    }
  };

  return async (caller, body, options = {}) => {
    const reply = (frame: ServerFrame) => deps.push.send({ tenant: caller.identity.tenant, connectionId: caller.connectionId }, frame);
    const parsed = parseClientFrame(body, options);
    if (!parsed.ok) {
      await reply(errorFrame(errorBody(parsed.error, {}), parsed.requestId));
      return;
    }
    const frame = parsed.frame;
    try {
      switch (frame.type) {
        case "process-skill":
          return await processSkill(caller, frame, reply);
        case "process-subscribe":
          return await processSubscribe(caller, frame, reply);
        case "skill-list":
          return await skillList(caller, frame, reply);
        case "process-skill-script-result":
          return await scriptResult(caller, frame);
      }
    } catch (error) {
      await reply(errorFrame(errorBody(error, { type: frame.type }), frame.requestId));
    }
  };
}
