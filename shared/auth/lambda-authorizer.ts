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

/**
 * One authorizer for both APIs: the HTTP API (payload 2.0, simple responses) and the WebSocket
 * API's `$connect` (REQUEST authorizer answering with an IAM policy). Decisions depend on the
 * token only, never on the path, so API Gateway may cache them by identity source.
 */
export type AuthorizerEvent = APIGatewayRequestAuthorizerEventV2 | APIGatewayRequestAuthorizerEvent;

export type HttpAuthorizerResult = APIGatewaySimpleAuthorizerWithContextResult<AuthorizerContext>;
export type WebSocketAuthorizerResult = APIGatewayAuthorizerWithContextResult<AuthorizerContext>;
export type AuthorizerResult = HttpAuthorizerResult | WebSocketAuthorizerResult;

/** Throwing exactly this message makes API Gateway answer 401 (anything else thrown is a 500). */
export const UNAUTHORIZED_MESSAGE = "Unauthorized";

export type AuthorizerRequest = { kind: "http"; token: string } | { kind: "websocket"; token: string; methodArn: string };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const stringMap = (value: unknown): Record<string, string | undefined> => (isRecord(value) ? (value as Record<string, string | undefined>) : {});

/** Which API is asking and with which token; an event of any other shape is refused. */
export function authorizerRequest(event: unknown): AuthorizerRequest {
  if (!isRecord(event) || event.type !== "REQUEST") throw new Unauthenticated("not a REQUEST authorizer event");
  const headers = stringMap(event.headers);
  if (event.version === "2.0" && typeof event.routeArn === "string") {
    const fromIdentitySource = Array.isArray(event.identitySource) && typeof event.identitySource[0] === "string" ? event.identitySource[0] : undefined;
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

export function authorizerResult(request: AuthorizerRequest, identity: Identity): AuthorizerResult {
  const context = toAuthorizerContext(identity);
  if (request.kind === "http") return { isAuthorized: true, context };
  return {
    principalId: `${identity.tenant}/${identity.login}`,
    policyDocument: {
      Version: "2012-10-17",
      Statement: [{ Action: "execute-api:Invoke", Effect: "Allow", Resource: request.methodArn }],
    },
    context,
  };
}

/** Verifies the event's token and shapes the allow response; `Unauthenticated` otherwise. */
export async function authorize(event: unknown, verify: (token: string) => Promise<Identity>): Promise<AuthorizerResult> {
  const request = authorizerRequest(event);
  return authorizerResult(request, await verify(request.token));
}
