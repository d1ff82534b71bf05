import type { IncomingMessage } from "node:http";
import { randomUUID } from "node:crypto";
import type { APIGatewayProxyEventV2WithLambdaAuthorizer, APIGatewayRequestAuthorizerEventV2 } from "aws-lambda";
import { apiGatewayTime, traceHeader } from "./api-gateway-time.js";

/** What the gateway knows about one HTTP request before any function runs. */
export interface HttpRequestFacts {
  method: string;
  rawPath: string;
  rawQueryString: string;
  /** Lowercased names; repeated headers joined with "," as API Gateway does. */
  headers: Record<string, string>;
  cookies: string[];
  queryStringParameters: Record<string, string> | undefined;
  body: Buffer;
  sourceIp: string;
  requestId: string;
  time: Date;
}

export interface MatchedRoute {
  /** `GET /brain/{tenant}/skills/effective`, the route key API Gateway reports. */
  routeKey: string;
  pathParameters: Record<string, string>;
}

export const LOCAL_ACCOUNT_ID = "000000000000";
const LOCAL_HTTP_API_ID = "local-http";
const HTTP_STAGE = "$default";

// API Gateway passes these as text; anything else arrives base64-encoded.
const TEXT_TYPES =
  /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded|yaml|x-yaml|x-ndjson)\b|application\/[\w.+-]+\+(json|xml)\b)/i;

function isTextContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && TEXT_TYPES.test(contentType.trim());
}

/** Reads the facts of a request whose body has already been read (bounded) by the caller. */
export function httpRequestFacts(req: IncomingMessage, body: Buffer, now = new Date()): HttpRequestFacts {
  const url = req.url ?? "/";
  const queryAt = url.indexOf("?");
  const rawPath = queryAt === -1 ? url : url.slice(0, queryAt);
  const rawQueryString = queryAt === -1 ? "" : url.slice(queryAt + 1);
  const requestId = randomUUID();
  const sourceIp = (req.socket.remoteAddress ?? "127.0.0.1").replace(/^::ffff:/, "");

  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] ?? "").toLowerCase();
    const value = req.rawHeaders[i + 1] ?? "";
    if (name === "cookie") {
      cookies.push(
        ...value
          .split(";")
          .map((c) => c.trim())
          .filter((c) => c !== ""),
      );
      continue;
    }
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
  }
  const port = String(req.socket.localPort ?? "");
  headers["x-forwarded-for"] = headers["x-forwarded-for"] ? `${headers["x-forwarded-for"]}, ${sourceIp}` : sourceIp;
  headers["x-forwarded-port"] = port;
  headers["x-forwarded-proto"] = "http";
  headers["x-amzn-trace-id"] = traceHeader(now, requestId);

  let queryStringParameters: Record<string, string> | undefined;
  if (rawQueryString !== "") {
    queryStringParameters = {};
    for (const [key, value] of new URLSearchParams(rawQueryString)) {
      const seen = queryStringParameters[key];
      queryStringParameters[key] = seen === undefined ? value : `${seen},${value}`;
    }
  }
  return {
    method: (req.method ?? "GET").toUpperCase(),
    rawPath,
    rawQueryString,
    headers,
    cookies,
    queryStringParameters,
    body,
    sourceIp,
    requestId,
    time: now,
  };
}

function requestContext(facts: HttpRequestFacts, route: MatchedRoute) {
  const host = facts.headers.host ?? "127.0.0.1";
  return {
    accountId: LOCAL_ACCOUNT_ID,
    apiId: LOCAL_HTTP_API_ID,
    domainName: host,
    domainPrefix: host.split(".")[0] ?? host,
    http: {
      method: facts.method,
      path: facts.rawPath,
      protocol: "HTTP/1.1",
      sourceIp: facts.sourceIp,
      userAgent: facts.headers["user-agent"] ?? "",
    },
    requestId: facts.requestId,
    routeKey: route.routeKey,
    stage: HTTP_STAGE,
    time: apiGatewayTime(facts.time),
    timeEpoch: facts.time.getTime(),
  };
}

/** Body and its encoding as API Gateway hands them to a function (text types as text, the rest base64). */
function encodedBody(facts: HttpRequestFacts): { body?: string; isBase64Encoded: boolean } {
  if (facts.body.length === 0) return { isBase64Encoded: false };
  if (isTextContentType(facts.headers["content-type"])) {
    try {
      return { body: new TextDecoder("utf-8", { fatal: true }).decode(facts.body), isBase64Encoded: false };
    } catch {
      // Bytes that are not UTF-8 would be mangled as a string; base64 keeps them intact.
    }
  }
  return { body: facts.body.toString("base64"), isBase64Encoded: true };
}

/** The HTTP API payload format 2.0 event for a route integration. */
export function httpApiEvent(
  facts: HttpRequestFacts,
  route: MatchedRoute,
  authorizerContext: Record<string, unknown> | undefined,
): APIGatewayProxyEventV2WithLambdaAuthorizer<Record<string, unknown>> {
  const event: Record<string, unknown> = {
    version: "2.0",
    routeKey: route.routeKey,
    rawPath: facts.rawPath,
    rawQueryString: facts.rawQueryString,
    ...(facts.cookies.length > 0 ? { cookies: facts.cookies } : {}),
    headers: facts.headers,
    ...(facts.queryStringParameters ? { queryStringParameters: facts.queryStringParameters } : {}),
    requestContext: {
      ...requestContext(facts, route),
      ...(authorizerContext === undefined ? {} : { authorizer: { lambda: authorizerContext } }),
    },
    ...(Object.keys(route.pathParameters).length > 0 ? { pathParameters: route.pathParameters } : {}),
    ...encodedBody(facts),
  };
  return event as unknown as APIGatewayProxyEventV2WithLambdaAuthorizer<Record<string, unknown>>;
}

/** The HTTP API Lambda authorizer event (payload 2.0, REQUEST; the deployed API names no identity source, so it may be absent). */
export function httpAuthorizerEvent(
  facts: HttpRequestFacts,
  route: MatchedRoute,
  identitySource: string | undefined,
  region: string,
): APIGatewayRequestAuthorizerEventV2 {
  return {
    version: "2.0",
    type: "REQUEST",
    routeArn: `arn:aws:execute-api:${region}:${LOCAL_ACCOUNT_ID}:${LOCAL_HTTP_API_ID}/${HTTP_STAGE}/${facts.method}${facts.rawPath}`,
    identitySource: identitySource === undefined ? [] : [identitySource],
    routeKey: route.routeKey,
    rawPath: facts.rawPath,
    rawQueryString: facts.rawQueryString,
    cookies: facts.cookies,
    headers: facts.headers,
    ...(facts.queryStringParameters ? { queryStringParameters: facts.queryStringParameters } : {}),
    requestContext: requestContext(facts, route),
    pathParameters: route.pathParameters,
  } as APIGatewayRequestAuthorizerEventV2;
}
