import type { ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { jsonResponse } from "../../shared/http/response.js";

/**
 * Answers the local gateway gives by itself, where API Gateway would answer without invoking a
 * function (`{"message":"Unauthorized"}` and friends). They use the API.md error shape, so a
 * client sees one error format whether a function or the gateway refused the request.
 */
type GatewayErrorCode =
  | "UNAUTHENTICATED"
  | "FORBIDDEN"
  | "INVALID_REQUEST"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "PAYLOAD_TOO_LARGE"
  | "INTERNAL"
  | "SERVICE_UNAVAILABLE";

const STATUS: Readonly<Record<GatewayErrorCode, number>> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  INVALID_REQUEST: 400,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
};

export function gatewayError(
  code: GatewayErrorCode,
  message: string,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return jsonResponse(STATUS[code], { error: { code, message } }, headers);
}

/** API Gateway HTTP API's quota on the request line and headers together. */
export const MAX_REQUEST_HEADER_BYTES = 10 * 1024;

/**
 * What node:http would otherwise answer by itself, as a bare status line without a body (431 for
 * headers past `maxHeaderSize`, 400 for a request it cannot parse): the same answers in API.md's
 * shape. Headers past the quota are 413 PAYLOAD_TOO_LARGE, like an oversized body.
 */
export function writeClientError(socket: Duplex, error: NodeJS.ErrnoException): void {
  if (!socket.writable || (error.code === "ECONNRESET" && socket.destroyed)) {
    socket.destroy();
    return;
  }
  const result =
    error.code === "HPE_HEADER_OVERFLOW"
      ? gatewayError("PAYLOAD_TOO_LARGE", `Request line and headers are larger than ${MAX_REQUEST_HEADER_BYTES} bytes`)
      : gatewayError("INVALID_REQUEST", "Malformed HTTP request");
  const body = result.body ?? "";
  const headers = Object.entries({ ...result.headers, "content-length": String(Buffer.byteLength(body)), connection: "close" })
    .map(([name, value]) => `${name}: ${String(value)}`)
    .join("\r\n");
  const reason = result.statusCode === 413 ? "Payload Too Large" : "Bad Request";
  socket.end(`HTTP/1.1 ${result.statusCode ?? 400} ${reason}\r\n${headers}\r\n\r\n${body}`);
}

/** Writes a structured result that is known to be well formed (gateway answers, not function results). */
export function writeStructured(
  res: ServerResponse,
  result: APIGatewayProxyStructuredResultV2,
  extraHeaders: Record<string, string> = {},
): void {
  const body = result.body === undefined ? Buffer.alloc(0) : Buffer.from(result.body, result.isBase64Encoded ? "base64" : "utf8");
  res.writeHead(result.statusCode ?? 200, { ...stringHeaders(result.headers), ...extraHeaders, "content-length": String(body.length) });
  res.end(body);
}

function stringHeaders(headers: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined || value === null) continue;
    out[name.toLowerCase()] = String(value);
  }
  return out;
}
