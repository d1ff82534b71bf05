import type { IncomingMessage, ServerResponse } from "node:http";
import { InvalidRequest } from "../../shared/errors.js";
import { TOKEN_HINT } from "../../shared/auth/auth-errors.js";
import { errorHttpResponse } from "../../shared/http/response.js";
import { matchRoute } from "../../shared/http/router.js";
import type { RouteDefinition } from "../../shared/http/router.js";
import { HTTP_ROUTES } from "../api-routes.js";
import type { HttpRoute } from "../api-routes.js";
import { authorizerFailure, httpAuthorizerOutcome } from "./authorizer-outcome.js";
import type { AuthorizerOutcome } from "./authorizer-outcome.js";
import { FunctionTimedOut } from "./function-registry.js";
import type { FunctionRegistry } from "./function-registry.js";
import { gatewayError, writeStructured } from "./gateway-errors.js";
import { httpApiEvent, httpAuthorizerEvent, httpRequestFacts } from "./http-api-event.js";
import type { HttpRequestFacts, MatchedRoute } from "./http-api-event.js";
import { httpResponseParts, MalformedFunctionResult } from "./http-api-result.js";
import type { LocalStackLogger } from "./local-logger.js";
import { MAX_REQUEST_BODY_BYTES, readRequestBody, RequestBodyTooLarge } from "./request-body.js";

/** API Gateway HTTP API's integration timeout; the function keeps running, the caller gets 503. */
const HTTP_INTEGRATION_TIMEOUT_MS = 30_000;
/** Lambda's synchronous invocation payload limit: a larger event never reaches the function. */
const MAX_INVOCATION_PAYLOAD_BYTES = 6 * 1024 * 1024;

interface HttpGatewayOptions {
  functions: FunctionRegistry;
  region: string;
  logger: LocalStackLogger;
  integrationTimeoutMs?: number | undefined;
  authorizerTimeoutMs?: number | undefined;
  /** One line per request (the CLI); tests leave it off. */
  accessLog?: boolean | undefined;
}

const ROUTES: readonly RouteDefinition<HttpRoute>[] = HTTP_ROUTES.map((route) => ({
  method: route.method,
  pattern: route.path,
  target: route,
}));

type Answer = { kind: "gateway"; result: ReturnType<typeof gatewayError> } | { kind: "function"; result: unknown };

const gateway = (result: ReturnType<typeof gatewayError>): Answer => ({ kind: "gateway", result });

/**
 * The HTTP API in front of the functions: routes from infra/api-routes.ts, the Lambda
 * authorizer on every non-public route, payload format 2.0 events, and API Gateway's reading of
 * the function's result. The path-safety rule (API.md) applies before any route is looked up.
 */
export class HttpGateway {
  constructor(private readonly options: HttpGatewayOptions) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    let facts: HttpRequestFacts | undefined;
    let answer: Answer;
    try {
      facts = httpRequestFacts(req, await readRequestBody(req, MAX_REQUEST_BODY_BYTES));
      answer = await this.answer(facts);
    } catch (error) {
      if (!(error instanceof RequestBodyTooLarge)) throw error;
      req.resume();
      answer = gateway(gatewayError("PAYLOAD_TOO_LARGE", error.message));
      res.setHeader("connection", "close");
    }
    const requestId = facts?.requestId ?? "";
    const status = this.write(res, answer, requestId);
    if (this.options.accessLog) this.options.logger.info(`${req.method ?? "?"} ${req.url ?? ""} → ${status} (${Date.now() - started} ms)`);
  }

  private async answer(facts: HttpRequestFacts): Promise<Answer> {
    let match;
    try {
      match = matchRoute(facts.method, facts.rawPath, ROUTES);
    } catch (error) {
      if (error instanceof InvalidRequest) return { kind: "function", result: errorHttpResponse(error) };
      // A segment decodeURIComponent refuses (`%zz`, a lone `%`) is bad input, not a gateway fault.
      if (error instanceof URIError) return gateway(gatewayError("INVALID_REQUEST", "Path has malformed percent-encoding"));
      throw error;
    }
    if (match.kind === "method-not-allowed") {
      const allowed = match.allowed.join(", ");
      return gateway(
        gatewayError(
          "METHOD_NOT_ALLOWED",
          `Method ${facts.method.slice(0, 20)} is not allowed on ${facts.rawPath.slice(0, 200)} (allowed: ${allowed})`,
          { allow: allowed },
        ),
      );
    }
    if (match.kind !== "matched")
      return gateway(gatewayError("NOT_FOUND", `No route for ${facts.method.slice(0, 20)} ${facts.rawPath.slice(0, 200)}`));
    const route = match.route.target;
    const matched: MatchedRoute = { routeKey: `${route.method} ${route.path}`, pathParameters: { ...match.params } };

    let authorizerContext: Record<string, unknown> | undefined;
    if (route.public !== true) {
      const outcome = await this.authorize(facts, matched);
      if (outcome.kind === "unauthorized")
        return gateway(gatewayError("UNAUTHENTICATED", `Unauthenticated: no valid token; ${TOKEN_HINT}`));
      if (outcome.kind === "forbidden") return gateway(gatewayError("FORBIDDEN", "Forbidden"));
      if (outcome.kind === "error") {
        this.options.logger.error("Authorizer failed", outcome.error);
        return gateway(gatewayError("INTERNAL", "Internal error"));
      }
      authorizerContext = outcome.context;
    }

    const event = httpApiEvent(facts, matched, authorizerContext);
    if (Buffer.byteLength(JSON.stringify(event)) > MAX_INVOCATION_PAYLOAD_BYTES) {
      return gateway(
        gatewayError("PAYLOAD_TOO_LARGE", `The request exceeds Lambda's ${MAX_INVOCATION_PAYLOAD_BYTES}-byte invocation payload limit`),
      );
    }
    try {
      const timeoutMs = this.options.integrationTimeoutMs ?? HTTP_INTEGRATION_TIMEOUT_MS;
      return { kind: "function", result: await this.options.functions.invoke(route.function, event, { timeoutMs }) };
    } catch (error) {
      if (error instanceof FunctionTimedOut) return gateway(gatewayError("SERVICE_UNAVAILABLE", error.message));
      this.options.logger.error(`Function '${route.function}' failed for ${matched.routeKey}`, error);
      return gateway(gatewayError("INTERNAL", "Internal error"));
    }
  }

  private async authorize(facts: HttpRequestFacts, route: MatchedRoute): Promise<AuthorizerOutcome> {
    // As deployed (infra/constructs/http-api.ts): no identity source, so the authorizer runs for a
    // request without a token too and the function answers 401 saying what is missing and how to
    // get a token, rather than API Gateway's bare "Unauthorized".
    const event = httpAuthorizerEvent(facts, route, facts.headers.authorization, this.options.region);
    try {
      const result = await this.options.functions.invoke("authorizer", event, { timeoutMs: this.options.authorizerTimeoutMs ?? 10_000 });
      return httpAuthorizerOutcome(result, event.routeArn);
    } catch (error) {
      return authorizerFailure(error);
    }
  }

  /** Writes the answer and returns the status sent. */
  private write(res: ServerResponse, answer: Answer, requestId: string): number {
    const extra: Record<string, string> = requestId === "" ? {} : { "apigw-requestid": requestId };
    if (answer.kind === "gateway") {
      writeStructured(res, answer.result, extra);
      return answer.result.statusCode ?? 500;
    }
    let parts;
    try {
      parts = httpResponseParts(answer.result);
    } catch (error) {
      if (!(error instanceof MalformedFunctionResult)) throw error;
      this.options.logger.error(`Malformed function result: ${error.message}`);
      const fallback = gatewayError("INTERNAL", "Internal error");
      writeStructured(res, fallback, extra);
      return fallback.statusCode ?? 500;
    }
    const headers: Record<string, string | string[]> = { ...parts.headers, ...extra, "content-length": String(parts.body.length) };
    delete headers["transfer-encoding"];
    if (parts.cookies.length > 0) headers["set-cookie"] = parts.cookies;
    res.writeHead(parts.statusCode, headers);
    res.end(parts.body);
    return parts.statusCode;
  }
}
