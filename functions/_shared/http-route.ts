import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { Identity } from "../../shared/auth/identity.js";
import type { LaneUser } from "../../shared/lanes/lane-message.js";
import type { HttpMethod } from "../../shared/http/router.js";
import type { HttpRequestEvent } from "../../shared/http/request.js";

export type HttpReply = APIGatewayProxyStructuredResultV2;

/** One request after the wrapper checked the event, the path and the route. */
export interface HttpRequest {
  readonly method: string;
  readonly rawPath: string;
  /** Path parameters, each percent-decoded exactly once (router.ts). */
  readonly params: Readonly<Record<string, string>>;
  /** For parseJsonBody / readBody / header / queryParam (shared/http/request.ts). */
  readonly event: HttpRequestEvent;
  /** Milliseconds until Lambda stops this invocation; undefined outside Lambda. */
  remainingTimeMs(): number | undefined;
  /** A path parameter the route pattern declares (its absence is a bug in the route table). */
  param(name: string): string;
  query(name: string): string | undefined;
  header(name: string): string | undefined;
}

/** A request whose identity came from a verified token and whose `{tenant}`, if any, is the token's. */
export interface AuthenticatedRequest extends HttpRequest {
  readonly identity: Identity;
  /** The identity as the lane carries it. */
  readonly user: LaneUser;
}

export type HttpRoute =
  | { readonly method: HttpMethod; readonly pattern: string; readonly public: true; handle(request: HttpRequest): Promise<HttpReply> }
  | {
      readonly method: HttpMethod;
      readonly pattern: string;
      readonly public?: false;
      handle(request: AuthenticatedRequest): Promise<HttpReply>;
    };

export const route = (method: HttpMethod, pattern: string, handle: (request: AuthenticatedRequest) => Promise<HttpReply>): HttpRoute => ({
  method,
  pattern,
  handle,
});

/** `/health` and `/openapi.json`: no identity is established or required. */
export const publicRoute = (method: HttpMethod, pattern: string, handle: (request: HttpRequest) => Promise<HttpReply>): HttpRoute => ({
  method,
  pattern,
  public: true,
  handle,
});
