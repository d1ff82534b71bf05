import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { errorResponse } from "./error-response.js";

type HttpHeaders = Record<string, string>;

const BASE_HEADERS: HttpHeaders = {
  "content-type": "application/json; charset=utf-8",
  // API answers are per caller: no shared cache may keep them, no browser may sniff them.
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
};

export function jsonResponse(statusCode: number, body: unknown, headers: HttpHeaders = {}): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { ...BASE_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/** 204 and friends: no body, no content type. */
export function emptyResponse(statusCode = 204, headers: HttpHeaders = {}): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { "cache-control": "no-store", ...headers } };
}

/** Any thrown value as a complete HTTP response (see errorResponse). */
export function errorHttpResponse(error: unknown, headers: HttpHeaders = {}): APIGatewayProxyStructuredResultV2 {
  const { statusCode, body, headers: own } = errorResponse(error);
  return jsonResponse(statusCode, body, { ...own, ...headers });
}
