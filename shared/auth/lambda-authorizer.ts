import type {
  APIGatewayAuthorizerWithContextResult,
  APIGatewayRequestAuthorizerEvent,
  APIGatewayRequestAuthorizerEventV2,
  APIGatewaySimpleAuthorizerWithContextResult,
} from "aws-lambda";
import { headerValue } from "../http/request.js";
import { Unauthenticated } from "./auth-errors.js";
import { toAuthorizerContext } from "./authorizer-context.js";
import type { AuthorizerContext } from "./authorizer-context.js";
import { bearerToken } from "./bearer-token.js";
import type { Identity } from "./identity.js";
import type { VerifiedToken } from "./token-verifier.js";

/**
 * One authorizer for both APIs: the HTTP API (payload 2.0, simple responses) and the WebSocket
 * API's `$connect` (REQUEST authorizer answering with an IAM policy). Decisions depend on the
 * token only, never on the path, so API Gateway may cache them by identity source.
 *
 * On the HTTP API a missing or bad token is *allowed through* with an UnauthenticatedContext:
 * API Gateway's own 401 has the body `{"message":"Unauthorized"}`, not API.md's error shape, so
 * the function answers 401 UNAUTHENTICATED itself. Every HTTP function must therefore refuse a
 * request whose context is not an identity (functions/_shared/http-handler.ts does, fail closed).
 * A WebSocket upgrade has no body to carry an error, so `$connect` is still denied outright.
 */
export type AuthorizerEvent = APIGatewayRequestAuthorizerEventV2 | APIGatewayRequestAuthorizerEvent;

/** The context of an HTTP request without a valid token; `reason` never contains the token. */
export interface UnauthenticatedContext {
  [key: string]: string;
  authenticated: "false";
  reason: string;
}

export type HttpAuthorizerResult = APIGatewaySimpleAuthorizerWithContextResult<AuthorizerContext | UnauthenticatedContext>;
export type WebSocketAuthorizerResult = APIGatewayAuthorizerWithContextResult<AuthorizerContext>;
export type AuthorizerResult = HttpAuthorizerResult | WebSocketAuthorizerResult;

/** Throwing exactly this message makes API Gateway answer 401 (anything else thrown is a 500). */
export const UNAUTHORIZED_MESSAGE = "Unauthorized";

type AuthorizerRequest = { kind: "http"; token: string } | { kind: "websocket"; token: string; methodArn: string };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const stringMap = (value: unknown): Record<string, string | undefined> =>
  isRecord(value) ? (value as Record<string, string | undefined>) : {};

/** Which API is asking and with which token; an event of any other shape is refused. */
function authorizerRequest(event: unknown): AuthorizerRequest {
  if (!isRecord(event) || event.type !== "REQUEST") throw new Unauthenticated("not a REQUEST authorizer event");
  const headers = stringMap(event.headers);
  if (event.version === "2.0" && typeof event.routeArn === "string") {
    const fromIdentitySource =
      Array.isArray(event.identitySource) && typeof event.identitySource[0] === "string" ? event.identitySource[0] : undefined;
    return { kind: "http", token: bearerToken(headerValue(headers, "authorization") ?? fromIdentitySource) };
  }
  if (typeof event.methodArn === "string" && event.methodArn !== "") {
    // Browsers cannot set headers on a WebSocket handshake, hence `?token=`; a header still works for other clients.
    const fromQuery = stringMap(event.queryStringParameters).token;
    const token = fromQuery !== undefined && fromQuery !== "" ? fromQuery : bearerToken(headerValue(headers, "authorization"));
    return { kind: "websocket", token, methodArn: event.methodArn };
  }
  throw new Unauthenticated("unrecognized authorizer event");
}

function authorizerResult(request: AuthorizerRequest, verified: Identity | VerifiedToken): AuthorizerResult {
  const identity = "identity" in verified ? verified.identity : verified;
  if (request.kind === "http") return { isAuthorized: true, context: toAuthorizerContext(identity) };
  // A WebSocket outlives the request that opened it: its events carry the token's expiry so
  // every frame after it is refused and the connection closed (API.md, second round).
  const context =
    "identity" in verified ? toAuthorizerContext(identity, { tokenExpiresAt: verified.expiresAt }) : toAuthorizerContext(identity);
  return {
    principalId: `${identity.tenant}/${identity.login}`,
    policyDocument: {
      Version: "2012-10-17",
      Statement: [{ Action: "execute-api:Invoke", Effect: "Allow", Resource: request.methodArn }],
    },
    context,
  };
}

/** An HTTP API (payload 2.0) authorizer event, as opposed to a WebSocket `$connect` one. */
export function isHttpAuthorizerEvent(event: unknown): boolean {
  return isRecord(event) && event.type === "REQUEST" && event.version === "2.0" && typeof event.routeArn === "string";
}

const MAX_REASON_LENGTH = 200;

/** The HTTP answer for a request without a valid token: let it through, marked, so the function can answer 401 in API.md's shape. */
export function unauthenticatedHttpResult(reason: string): HttpAuthorizerResult {
  return { isAuthorized: true, context: { authenticated: "false", reason: reason.slice(0, MAX_REASON_LENGTH) } };
}

/** The reason of an UnauthenticatedContext; undefined for any other context (an identity, or garbage to be validated as one). */
export function unauthenticatedReasonOf(context: unknown): string | undefined {
  if (!isRecord(context) || context.authenticated !== "false") return undefined;
  return typeof context.reason === "string" && context.reason !== "" ? context.reason : "no valid token";
}

/** Verifies the event's token and shapes the allow response; `Unauthenticated` otherwise. */
export async function authorize(event: unknown, verify: (token: string) => Promise<Identity | VerifiedToken>): Promise<AuthorizerResult> {
  const request = authorizerRequest(event);
  return authorizerResult(request, await verify(request.token));
}
