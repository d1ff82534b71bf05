import type { ServerResponse } from "node:http";
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
  | "NOT_FOUND"
  | "PAYLOAD_TOO_LARGE"
  | "INTERNAL"
  | "SERVICE_UNAVAILABLE";

const STATUS: Readonly<Record<GatewayErrorCode, number>> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
};

export function gatewayError(code: GatewayErrorCode, message: string): APIGatewayProxyStructuredResultV2 {
  return jsonResponse(STATUS[code], { error: { code, message } });
}

/** Writes a structured result that is known to be well formed (gateway answers, not function results). */
export function writeStructured(res: ServerResponse, result: APIGatewayProxyStructuredResultV2, extraHeaders: Record<string, string> = {}): void {
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
