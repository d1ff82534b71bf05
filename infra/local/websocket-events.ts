import type { IncomingMessage } from "node:http";
import { randomBytes, randomUUID } from "node:crypto";
import type { APIGatewayRequestAuthorizerEvent } from "aws-lambda";
import { apiGatewayTime, traceHeader } from "./api-gateway-time.js";
import { LOCAL_ACCOUNT_ID } from "./http-api-event.js";

const LOCAL_WEBSOCKET_API_ID = "local-ws";
/** WebSocket APIs have named stages; the local one is `local`. */
const WEBSOCKET_STAGE = "local";

/** What the gateway keeps about one WebSocket connection (API Gateway: `requestContext` fields). */
export interface ConnectionFacts {
  connectionId: string;
  connectedAt: number;
  sourceIp: string;
  userAgent: string;
  domainName: string;
  /** `requestContext.authorizer`: the authorizer's context plus `principalId`. */
  authorizer: Record<string, unknown> | undefined;
}

/** Like API Gateway's ids (`L0SM9cOFvHcCIhw=`): 16 characters of base64, never a `/`. */
export function newConnectionId(): string {
  return randomBytes(11).toString("base64").replace(/\//g, "_");
}

interface HandshakeFacts {
  /** Header names as the client sent them (WebSocket events keep their case), repeated ones joined. */
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
  queryStringParameters: Record<string, string> | null;
  multiValueQueryStringParameters: Record<string, string[]> | null;
}

export function handshakeFacts(req: IncomingMessage, connection: ConnectionFacts, now: Date, requestId: string): HandshakeFacts {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] ?? "";
    const value = req.rawHeaders[i + 1] ?? "";
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
    (multiValueHeaders[name] ??= []).push(value);
  }
  const added: Record<string, string> = {
    "X-Amzn-Trace-Id": traceHeader(now, requestId),
    "X-Forwarded-For": connection.sourceIp,
    "X-Forwarded-Port": String(req.socket.localPort ?? ""),
    "X-Forwarded-Proto": "http",
  };
  for (const [name, value] of Object.entries(added)) {
    headers[name] = value;
    multiValueHeaders[name] = [value];
  }
  const url = new URL(req.url ?? "/", "http://local");
  let queryStringParameters: Record<string, string> | null = null;
  let multiValueQueryStringParameters: Record<string, string[]> | null = null;
  for (const [key, value] of url.searchParams) {
    queryStringParameters ??= {};
    multiValueQueryStringParameters ??= {};
    queryStringParameters[key] = value;
    (multiValueQueryStringParameters[key] ??= []).push(value);
  }
  return { headers, multiValueHeaders, queryStringParameters, multiValueQueryStringParameters };
}

export function webSocketMethodArn(region: string, routeKey = "$connect"): string {
  return `arn:aws:execute-api:${region}:${LOCAL_ACCOUNT_ID}:${LOCAL_WEBSOCKET_API_ID}/${WEBSOCKET_STAGE}/${routeKey}`;
}

/** The `$connect` REQUEST authorizer event (identity source `route.request.querystring.token`). */
export function webSocketAuthorizerEvent(
  handshake: HandshakeFacts,
  connection: ConnectionFacts,
  region: string,
  now: Date,
  requestId: string,
): APIGatewayRequestAuthorizerEvent {
  const event = {
    type: "REQUEST",
    methodArn: webSocketMethodArn(region),
    headers: handshake.headers,
    multiValueHeaders: handshake.multiValueHeaders,
    queryStringParameters: handshake.queryStringParameters,
    multiValueQueryStringParameters: handshake.multiValueQueryStringParameters,
    stageVariables: {},
    // Built before the authorizer has run, so the context carries no `authorizer` yet.
    requestContext: requestContext(connection, "$connect", "CONNECT", now, {}, requestId),
  };
  return event as unknown as APIGatewayRequestAuthorizerEvent;
}

function requestContext(
  connection: ConnectionFacts,
  routeKey: string,
  eventType: string,
  now: Date,
  extra: Record<string, unknown> = {},
  requestId: string = randomUUID(),
) {
  return {
    routeKey,
    eventType,
    ...extra,
    extendedRequestId: requestId,
    requestTime: apiGatewayTime(now),
    messageDirection: "IN",
    stage: WEBSOCKET_STAGE,
    connectedAt: connection.connectedAt,
    requestTimeEpoch: now.getTime(),
    identity: { sourceIp: connection.sourceIp, userAgent: connection.userAgent },
    requestId,
    domainName: connection.domainName,
    connectionId: connection.connectionId,
    apiId: LOCAL_WEBSOCKET_API_ID,
    ...(connection.authorizer === undefined ? {} : { authorizer: connection.authorizer }),
  };
}

export function connectEvent(handshake: HandshakeFacts, connection: ConnectionFacts, now: Date) {
  return {
    headers: handshake.headers,
    multiValueHeaders: handshake.multiValueHeaders,
    ...(handshake.queryStringParameters ? { queryStringParameters: handshake.queryStringParameters } : {}),
    ...(handshake.multiValueQueryStringParameters ? { multiValueQueryStringParameters: handshake.multiValueQueryStringParameters } : {}),
    requestContext: requestContext(connection, "$connect", "CONNECT", now),
    isBase64Encoded: false,
  };
}

export function messageEvent(connection: ConnectionFacts, data: Buffer, isBinary: boolean, now: Date) {
  return {
    requestContext: requestContext(connection, "$default", "MESSAGE", now, { messageId: randomBytes(11).toString("base64") }),
    body: isBinary ? data.toString("base64") : data.toString("utf8"),
    isBase64Encoded: isBinary,
  };
}

export function disconnectEvent(connection: ConnectionFacts, statusCode: number, reason: string, now: Date) {
  return {
    headers: { Host: connection.domainName, "X-Forwarded-For": connection.sourceIp },
    multiValueHeaders: { Host: [connection.domainName], "X-Forwarded-For": [connection.sourceIp] },
    requestContext: requestContext(connection, "$disconnect", "DISCONNECT", now, {
      disconnectStatusCode: statusCode,
      disconnectReason: reason,
    }),
    isBase64Encoded: false,
  };
}
