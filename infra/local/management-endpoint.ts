import type { IncomingMessage, ServerResponse } from "node:http";
import type { ConnectionRegistry } from "./connection-registry.js";
import { readRequestBody, RequestBodyTooLarge } from "./request-body.js";
import { WEBSOCKET_LIMITS } from "./websocket-gateway.js";

/**
 * The WebSocket API's management endpoint (`@connections`), so handlers push with the SDK's
 * PostToConnection / GetConnection / DeleteConnection unchanged. Errors carry
 * `x-amzn-errortype`, from which the SDK builds `GoneException`, `PayloadTooLargeException`, …
 *
 * Like API Gateway, it only answers SigV4-signed requests: any SDK client signs, while a web
 * page in the developer's browser cannot forge the header without a CORS preflight.
 */
export const CONNECTIONS_PATH_PREFIX = "/@connections/";

function awsError(res: ServerResponse, statusCode: number, type: string, message: string): void {
  const body = JSON.stringify({ message });
  res.writeHead(statusCode, {
    "content-type": "application/json",
    "x-amzn-errortype": type,
    "content-length": String(Buffer.byteLength(body)),
  });
  res.end(body);
}

function connectionIdOf(rawPath: string): string | undefined {
  const encoded = rawPath.slice(CONNECTIONS_PATH_PREFIX.length);
  try {
    const id = decodeURIComponent(encoded);
    return id === "" || id.includes("/") ? undefined : id;
  } catch {
    return undefined;
  }
}

const isUtf8 = (bytes: Buffer): boolean => {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};

export async function handleManagementRequest(
  req: IncomingMessage,
  res: ServerResponse,
  rawPath: string,
  connections: ConnectionRegistry,
): Promise<void> {
  if (!/^AWS4-HMAC-SHA256 /.test(req.headers.authorization ?? "")) {
    req.resume();
    return awsError(res, 403, "ForbiddenException", "Missing Authentication Token");
  }
  const connectionId = connectionIdOf(rawPath);
  if (connectionId === undefined) {
    req.resume();
    return awsError(res, 400, "BadRequestException", "Invalid connectionId");
  }
  let body: Buffer;
  try {
    body = await readRequestBody(req, WEBSOCKET_LIMITS.maxMessageBytes);
  } catch (error) {
    if (!(error instanceof RequestBodyTooLarge)) throw error;
    req.resume();
    return awsError(res, 413, "PayloadTooLargeException", "Message too long");
  }
  const connection = connections.get(connectionId);
  if (connection === undefined || connection.socket.readyState !== connection.socket.OPEN) {
    return awsError(res, 410, "GoneException", `Connection ${connectionId} is gone`);
  }
  switch (req.method) {
    case "POST":
      connection.socket.send(body, { binary: !isUtf8(body) });
      connection.touch();
      res.writeHead(200, { "content-length": "0" }).end();
      return;
    case "GET": {
      const info = JSON.stringify({
        connectedAt: new Date(connection.connectedAt).toISOString(),
        identity: { sourceIp: connection.sourceIp, userAgent: connection.userAgent },
        lastActiveAt: new Date(connection.lastActiveAt).toISOString(),
      });
      res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(info)) }).end(info);
      return;
    }
    case "DELETE":
      connection.socket.close(1000, "");
      res.writeHead(204).end();
      return;
    default:
      return awsError(res, 405, "MethodNotAllowedException", `Method ${req.method ?? ""} is not supported on @connections`);
  }
}
