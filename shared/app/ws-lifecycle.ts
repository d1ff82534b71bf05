import type { APIGatewayProxyResultV2 } from "aws-lambda";
import { Unauthenticated } from "../auth/auth-errors.js";
import { identityFromEvent } from "../auth/authorizer-context.js";
import type { Identity } from "../auth/identity.js";
import type { ConnectionPush } from "../connections/connection-push.js";
import type { ConnectionStore } from "../connections/connection-store.js";
import { errorFrame } from "../connections/server-frames.js";
import type { WsFrameRouter } from "./ws-frame-router.js";

/**
 * The three WebSocket routes over the ports, independent of Lambda wiring (the handlers in
 * functions/ws-* only build the dependencies). Identity always comes from the authorizer context
 * API Gateway attaches to every event of a connection authorized at `$connect`.
 */
interface WsLogger {
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

function connectionIdOf(event: unknown): string | undefined {
  const context = isRecord(event) ? event.requestContext : undefined;
  const id = isRecord(context) ? context.connectionId : undefined;
  return typeof id === "string" && id !== "" && id.length <= 256 ? id : undefined;
}

const identityOrUndefined = (event: unknown, logger: WsLogger, route: string): Identity | undefined => {
  try {
    return identityFromEvent(event);
  } catch (error) {
    if (!(error instanceof Unauthenticated)) throw error;
    logger.warn("WebSocket event without a valid authorizer context", { route, reason: error.reason });
    return undefined;
  }
};

/** `$connect`: fails closed — no identity, no connection (a non-2xx answer refuses the handshake). */
export async function handleConnect(deps: { connections: ConnectionStore; logger: WsLogger }, event: unknown): Promise<APIGatewayProxyResultV2> {
  const connectionId = connectionIdOf(event);
  if (connectionId === undefined) return { statusCode: 400, body: "Missing connectionId" };
  const identity = identityOrUndefined(event, deps.logger, "$connect");
  if (identity === undefined) return { statusCode: 401, body: "Unauthorized" };
  await deps.connections.put({ connectionId, identity });
  return { statusCode: 200 };
}

/** `$disconnect`: removes the connection and its subscriptions. Without identity nothing was stored. */
export async function handleDisconnect(deps: { connections: ConnectionStore; logger: WsLogger }, event: unknown): Promise<APIGatewayProxyResultV2> {
  const connectionId = connectionIdOf(event);
  const identity = identityOrUndefined(event, deps.logger, "$disconnect");
  if (connectionId !== undefined && identity !== undefined) await deps.connections.remove(identity.tenant, connectionId);
  return { statusCode: 200 };
}

/** `$default`: every client frame; answers are pushed to the caller's connection. */
export async function handleMessage(
  deps: { router: WsFrameRouter; push: ConnectionPush; logger: WsLogger },
  event: unknown,
): Promise<APIGatewayProxyResultV2> {
  const connectionId = connectionIdOf(event);
  if (connectionId === undefined) return { statusCode: 400, body: "Missing connectionId" };
  const identity = identityOrUndefined(event, deps.logger, "$default");
  if (identity === undefined) {
    await deps.push.send({ connectionId }, errorFrame({ code: "UNAUTHENTICATED", message: "Unauthenticated: the connection carries no verified identity" }));
    return { statusCode: 200 };
  }
  const body = isRecord(event) && typeof event.body === "string" ? event.body : undefined;
  const isBase64Encoded = isRecord(event) && event.isBase64Encoded === true;
  await deps.router({ identity, connectionId }, body, { isBase64Encoded });
  return { statusCode: 200 };
}
