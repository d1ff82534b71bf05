import type { Context } from "aws-lambda";
import { Unauthenticated } from "../../shared/auth/auth-errors.js";
import { assertTenant } from "../../shared/auth/authorization.js";
import { identityFromEvent } from "../../shared/auth/authorizer-context.js";
import type { Identity } from "../../shared/auth/identity.js";
import { unauthenticatedReasonOf } from "../../shared/auth/lambda-authorizer.js";
import { InvalidRequest } from "../../shared/errors.js";
import { errorResponse } from "../../shared/http/error-response.js";
import { MethodNotAllowed, RouteNotFound } from "../../shared/http/http-errors.js";
import { header, queryParam } from "../../shared/http/request.js";
import type { HttpRequestEvent } from "../../shared/http/request.js";
import { jsonResponse } from "../../shared/http/response.js";
import { matchRoute } from "../../shared/http/router.js";
import type { RouteDefinition } from "../../shared/http/router.js";
import { laneUserOf } from "../../shared/auth/identity.js";
import type { AuthenticatedRequest, HttpReply, HttpRequest, HttpRoute } from "./http-route.js";
import { SILENT_LOGGER } from "./observability.js";
import type { Logger } from "../../shared/support/logger.js";

interface HttpHandlerOptions {
  logger?: Logger;
}

export type LambdaHttpHandler = (event: unknown, context?: Context) => Promise<HttpReply>;

/** The checked parts of an API Gateway HTTP API (payload 2.0) event. */
interface ParsedEvent {
  method: string;
  rawPath: string;
  event: HttpRequestEvent;
  authorizer: unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function stringMap(what: string, value: unknown): Record<string, string | undefined> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value) || !Object.values(value).every((v) => v === undefined || typeof v === "string")) {
    throw new InvalidRequest(`Malformed request event: ${what} must map names to strings`);
  }
  return value as Record<string, string | undefined>;
}

/** Anything that is not a payload 2.0 event (a test console, a wrong integration) is a 400, never a crash. */
function parseEvent(event: unknown): ParsedEvent {
  if (!isRecord(event)) throw new InvalidRequest("Malformed request event: not an object");
  const requestContext = isRecord(event.requestContext) ? event.requestContext : {};
  const http = isRecord(requestContext.http) ? requestContext.http : {};
  if (typeof http.method !== "string" || http.method === "") throw new InvalidRequest("Malformed request event: no HTTP method");
  if (typeof event.rawPath !== "string") throw new InvalidRequest("Malformed request event: no path");
  if (event.body !== undefined && event.body !== null && typeof event.body !== "string")
    throw new InvalidRequest("Malformed request event: body must be a string");
  return {
    method: http.method.toUpperCase(),
    rawPath: event.rawPath,
    event: {
      headers: stringMap("headers", event.headers),
      queryStringParameters: stringMap("query parameters", event.queryStringParameters),
      body: (event.body as string | null | undefined) ?? null,
      isBase64Encoded: event.isBase64Encoded === true,
    },
    authorizer: requestContext.authorizer,
  };
}

/**
 * Identity only from the authorizer context (never a header, query or body). The authorizer
 * marks requests without a valid token instead of rejecting them (lambda-authorizer.ts), so
 * this is where they become 401 UNAUTHENTICATED in API.md's shape.
 */
function identityOf(parsed: ParsedEvent): Identity {
  const authorizer = isRecord(parsed.authorizer) ? parsed.authorizer : undefined;
  const context = authorizer && isRecord(authorizer.lambda) ? authorizer.lambda : authorizer;
  const reason = unauthenticatedReasonOf(context);
  if (reason !== undefined) throw new Unauthenticated(reason);
  return identityFromEvent({ requestContext: { authorizer: parsed.authorizer } });
}

function requestOf(parsed: ParsedEvent, params: Readonly<Record<string, string>>, context: Context | undefined): HttpRequest {
  return {
    method: parsed.method,
    rawPath: parsed.rawPath,
    params,
    event: parsed.event,
    remainingTimeMs: () => (typeof context?.getRemainingTimeInMillis === "function" ? context.getRemainingTimeInMillis() : undefined),
    param(name) {
      const value = params[name];
      if (value === undefined) throw new Error(`Route has no path parameter '${name}'`);
      return value;
    },
    query: (name) => queryParam(parsed.event, name),
    header: (name) => header(parsed.event, name),
  };
}

/**
 * The one Lambda entry of every HTTP function: event checks, the raw-path rule (API.md: dot
 * segments and backslashes, encoded or not, are 400 whatever the route), routing, identity,
 * the `{tenant}` check, and the one error table. Bad input of any kind is a 4xx; only a bug or
 * an unavailable dependency is a 500, logged with its cause and answered without internals.
 */
export function httpHandler(routes: readonly HttpRoute[], options: HttpHandlerOptions = {}): LambdaHttpHandler {
  const logger = options.logger ?? SILENT_LOGGER;
  const definitions: RouteDefinition<HttpRoute>[] = routes.map((r) => ({ method: r.method, pattern: r.pattern, target: r }));

  const dispatch = async (parsed: ParsedEvent, context: Context | undefined): Promise<HttpReply> => {
    const match = matchRoute(parsed.method, parsed.rawPath, definitions);
    // API.md "Additions (second round)": the gateway codes, the same whether API Gateway or a function answers.
    if (match.kind === "not-found") throw new RouteNotFound(parsed.method, parsed.rawPath);
    if (match.kind === "method-not-allowed") throw new MethodNotAllowed(parsed.method, match.allowed);
    const target = match.route.target;
    const request = requestOf(parsed, match.params, context);
    if (target.public === true) return target.handle(request);
    const identity = identityOf(parsed);
    // Every route under /brain/{tenant}/… gets the tenant rule here, so no handler can forget it.
    if (match.params.tenant !== undefined) assertTenant(identity, match.params.tenant);
    const authenticated: AuthenticatedRequest = { ...request, identity, user: laneUserOf(identity) };
    return target.handle(authenticated);
  };

  return async (event, context) => {
    let parsed: ParsedEvent | undefined;
    try {
      parsed = parseEvent(event);
      const reply = await dispatch(parsed, context);
      logger.debug("Request answered", {
        method: parsed.method,
        path: parsed.rawPath.slice(0, 300),
        status: reply.statusCode,
        awsRequestId: context?.awsRequestId,
      });
      return reply;
    } catch (thrown) {
      // decodeURIComponent's own failures are bad input too (router.ts decodes each segment once).
      const error = thrown instanceof URIError ? new InvalidRequest("Path has malformed percent-encoding") : thrown;
      const { statusCode, body, headers } = errorResponse(error);
      const about = {
        method: parsed?.method,
        path: parsed?.rawPath.slice(0, 300),
        status: statusCode,
        code: body.error.code,
        awsRequestId: context?.awsRequestId,
      };
      if (statusCode >= 500) logger.error("Request failed", { ...about, error });
      else logger.info("Request refused", { ...about, reason: body.error.message });
      return jsonResponse(statusCode, body, headers);
    }
  };
}
