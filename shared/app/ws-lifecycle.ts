import type { APIGatewayProxyResultV2 } from "aws-lambda";
import { TOKEN_HINT, Unauthenticated } from "../auth/auth-errors.js";
import { identityFromEvent, tokenExpiryFromEvent } from "../auth/authorizer-context.js";
import type { Identity } from "../auth/identity.js";
import type { ConnectionPush } from "../connections/connection-push.js";
import type { ConnectionStore } from "../connections/connection-store.js";
import { errorFrame } from "../connections/server-frames.js";
import type { WsFrameRouter } from "./ws-frame-router.js";
import type { Logger } from "../support/logger.js";

/**
 * The three WebSocket routes over the ports, independent of Lambda wiring (the handlers in
 * functions/ws-* only build the dependencies). Identity always comes from the authorizer context
 * API Gateway attaches to every event of a connection authorized at `$connect`.
 */
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

function connectionIdOf(event: unknown): string | undefined {
  const context = isRecord(event) ? event.requestContext : undefined;
  const id = isRecord(context) ? context.connectionId : undefined;
  return typeof id === "string" && id !== "" && id.length <= 256 ? id : undefined;
}

const identityOrUndefined = (event: unknown, logger: Pick<Logger, "info" | "warn">, route: string): Identity | undefined => {
  try {
    return identityFromEvent(event);
  } catch (error) {
    if (!(error instanceof Unauthenticated)) throw error;
    logger.warn("WebSocket event without a valid authorizer context", { route, reason: error.reason });
    return undefined;
  }
};

/** Limits of `$connect` (configured by SKILLS_WS_MAX_CONNECTIONS_PER_USER, docs/decisions.md). */
export interface WsConnectLimits {
  /** Open sockets one user of a tenant may hold at once. */
  maxConnectionsPerIdentity: number;
  /** Retry-After of the 429 past it. */
  retryAfterSeconds: number;
}

export const DEFAULT_WS_CONNECT_LIMITS: WsConnectLimits = Object.freeze({ maxConnectionsPerIdentity: 20, retryAfterSeconds: 30 });

export interface WsConnectDeps {
  connections: ConnectionStore;
  logger: Pick<Logger, "info" | "warn">;
  limits?: WsConnectLimits | undefined;
  clock?: (() => Date) | undefined;
}

const jsonError = (statusCode: number, code: string, message: string, headers: Record<string, string> = {}): APIGatewayProxyResultV2 => ({
  statusCode,
  headers: { "content-type": "application/json; charset=utf-8", ...headers },
  body: JSON.stringify({ error: { code, message } }),
});

/**
 * The token expiry of a WebSocket event, or undefined when the token has expired or the context
 * carries none (fails closed: our authorizer always sets it, so a missing one is a wiring fault).
 */
function liveTokenExpiry(event: unknown, now: Date, logger: Pick<Logger, "info" | "warn">, route: string): number | undefined {
  const expiresAt = tokenExpiryFromEvent(event);
  if (expiresAt === undefined) {
    logger.warn("WebSocket event without the token expiry in its authorizer context", { route });
    return undefined;
  }
  return now.getTime() < expiresAt * 1000 ? expiresAt : undefined;
}

/**
 * `$connect`: fails closed — no identity or an expired token, no connection (a non-2xx answer
 * refuses the handshake); past the per-identity socket cap, 429 with Retry-After. The count is
 * read before the put, so concurrent handshakes of one user may overshoot the cap by their
 * number (bounded by API Gateway's connect rate); the cap is about 1 000 sockets, not one.
 */
export async function handleConnect(deps: WsConnectDeps, event: unknown): Promise<APIGatewayProxyResultV2> {
  const connectionId = connectionIdOf(event);
  if (connectionId === undefined) return { statusCode: 400, body: "Missing connectionId" };
  const identity = identityOrUndefined(event, deps.logger, "$connect");
  if (identity === undefined) return jsonError(401, "UNAUTHENTICATED", `Unauthenticated: no valid token; ${TOKEN_HINT}`);
  const now = (deps.clock ?? (() => new Date()))();
  const tokenExpiresAt = liveTokenExpiry(event, now, deps.logger, "$connect");
  if (tokenExpiresAt === undefined) return jsonError(401, "UNAUTHENTICATED", "The token has expired or carries no expiry");
  const limits = deps.limits ?? DEFAULT_WS_CONNECT_LIMITS;
  const open = await deps.connections.countOpen(identity.tenant, identity.login);
  if (open >= limits.maxConnectionsPerIdentity) {
    deps.logger.warn("WebSocket connection refused: per-identity socket cap", {
      reason: "too many sockets",
      open,
      limit: limits.maxConnectionsPerIdentity,
    });
    return jsonError(
      429,
      "TOO_MANY_REQUESTS",
      `At most ${limits.maxConnectionsPerIdentity} WebSocket connections per user are open at once; close one or retry later`,
      {
        "Retry-After": String(limits.retryAfterSeconds),
      },
    );
  }
  await deps.connections.put({ connectionId, identity, tokenExpiresAt });
  return { statusCode: 200 };
}

/** WebSocket close code for "the token expired" (API.md, second round); 4000–4999 are the application's. */
export const TOKEN_EXPIRED_CLOSE_CODE = 4001;

/** `$disconnect`: removes the connection and its subscriptions. Without identity nothing was stored. */
export async function handleDisconnect(
  deps: { connections: ConnectionStore; logger: Pick<Logger, "info" | "warn"> },
  event: unknown,
): Promise<APIGatewayProxyResultV2> {
  const connectionId = connectionIdOf(event);
  const identity = identityOrUndefined(event, deps.logger, "$disconnect");
  if (connectionId !== undefined && identity !== undefined) await deps.connections.remove(identity.tenant, connectionId);
  return { statusCode: 200 };
}

/**
 * `$default`: every client frame; answers are pushed to the caller's connection. A frame after
 * the token's `exp` is refused (never routed) and the connection closed: the identity of a
 * socket is only as good as the token that opened it. API Gateway's DeleteConnection cannot
 * choose the close code; the local gateway (and a client-side timer) close with 4001 at `exp`.
 */
export async function handleMessage(
  deps: { router: WsFrameRouter; push: ConnectionPush; logger: Pick<Logger, "info" | "warn">; clock?: (() => Date) | undefined },
  event: unknown,
): Promise<APIGatewayProxyResultV2> {
  const connectionId = connectionIdOf(event);
  if (connectionId === undefined) return { statusCode: 400, body: "Missing connectionId" };
  const identity = identityOrUndefined(event, deps.logger, "$default");
  if (identity === undefined) {
    await deps.push.send(
      { connectionId },
      errorFrame({ code: "UNAUTHENTICATED", message: "Unauthenticated: the connection carries no verified identity" }),
    );
    return { statusCode: 200 };
  }
  const tokenExpiresAt = liveTokenExpiry(event, (deps.clock ?? (() => new Date()))(), deps.logger, "$default");
  if (tokenExpiresAt === undefined) {
    const target = { tenant: identity.tenant, connectionId };
    await deps.push.send(
      target,
      errorFrame({ code: "UNAUTHENTICATED", message: "The connection's token has expired; reconnect with a new token" }),
    );
    await deps.push.disconnect?.(target);
    return { statusCode: 200 };
  }
  const body = isRecord(event) && typeof event.body === "string" ? event.body : undefined;
  const isBase64Encoded = isRecord(event) && event.isBase64Encoded === true;
  await deps.router({ identity, connectionId, tokenExpiresAt }, body, { isBase64Encoded });
  return { statusCode: 200 };
}
