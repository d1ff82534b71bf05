import { decodeJwt } from "jose";
import { describe, expect, it } from "vitest";
import { createAuthorizerHandler } from "../../functions/authorizer/handler.js";
import type { AuthConfig } from "../../shared/auth/auth-config.js";
import { AuthConfigurationError, Unauthenticated } from "../../shared/auth/auth-errors.js";
import { identityFromAuthorizerContext, identityFromEvent, toAuthorizerContext } from "../../shared/auth/authorizer-context.js";
import type { Identity } from "../../shared/auth/identity.js";
import type { AuthorizerEvent, HttpAuthorizerResult, WebSocketAuthorizerResult } from "../../shared/auth/lambda-authorizer.js";
import { unauthenticatedReasonOf } from "../../shared/auth/lambda-authorizer.js";
import { issueToken } from "../../shared/auth/token-issuer.js";
import { httpAuthorizerEvent } from "../fixtures/events/authorizer-http-v2.js";
import { WEBSOCKET_METHOD_ARN, websocketConnectAuthorizerEvent } from "../fixtures/events/authorizer-websocket-connect.js";
import { httpApiV2Request } from "../fixtures/events/http-api-v2-request.js";
import type { Logger } from "../../shared/support/logger.js";

const SECRET = "a-test-secret-that-is-long-enough-for-hs256";
const mia: Identity = { login: "mia", tenant: "acme", projects: ["alpha"], roles: ["project-admin:alpha"] };

function setup(config: () => Promise<AuthConfig> = () => Promise.resolve({ secret: SECRET })) {
  const logs: { level: string; message: string; extra: Record<string, unknown>[] }[] = [];
  const logger: Pick<Logger, "info" | "error"> = {
    info: (message, ...extra) => logs.push({ level: "info", message, extra }),
    error: (message, ...extra) => logs.push({ level: "error", message, extra }),
  };
  return { handler: createAuthorizerHandler({ config, logger }), logs };
}

const rejection = async (promise: Promise<unknown>): Promise<Error> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
};

describe("authorizer on the HTTP API (payload 2.0, simple responses)", () => {
  it("allows a valid bearer token and passes the identity as context", async () => {
    // Prepare
    const { handler } = setup();
    const token = await issueToken(mia, SECRET, { ttl: "1h" });

    // Act
    const result = (await handler(httpAuthorizerEvent(`Bearer ${token}`))) as HttpAuthorizerResult;

    // Assess
    expect(result).toEqual({
      isAuthorized: true,
      context: { login: "mia", tenant: "acme", projects: '["alpha"]', roles: '["project-admin:alpha"]' },
    });
    expect(identityFromAuthorizerContext(result.context)).toEqual(mia);
  });

  it("finds the header whatever its case", async () => {
    // Prepare
    const { handler } = setup();
    const token = await issueToken(mia, SECRET, { ttl: "1h" });
    const event = httpAuthorizerEvent(undefined, { headers: { Authorization: `bearer ${token}` } });

    // Act
    const result = (await handler(event)) as HttpAuthorizerResult;

    // Assess
    expect(result.isAuthorized).toBe(true);
  });

  it.each([
    ["no Authorization header", undefined, /missing/],
    ["a Basic credential", "Basic bWlhOnB3", /Bearer/],
    ["a bearer without a token", "Bearer ", /Bearer/],
    ["a forged token", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtaWEiLCJ0ZW5hbnQiOiJhY21lIn0.c2lnbmF0dXJl", /signature|exp/],
  ])("lets %s through marked unauthenticated, with no identity, and logs why", async (_label, authorization, reason) => {
    // Prepare
    const { handler, logs } = setup();

    // Act
    const result = (await handler(httpAuthorizerEvent(authorization))) as HttpAuthorizerResult;

    // Assess
    expect(result.isAuthorized).toBe(true);
    expect(result.context).toEqual({ authenticated: "false", reason: expect.stringMatching(reason) });
    expect(unauthenticatedReasonOf(result.context)).toMatch(reason);
    expect(() => identityFromAuthorizerContext(result.context)).toThrow(Unauthenticated);
    expect(logs).toHaveLength(1);
    expect(String(logs[0]?.extra[0]?.reason)).toMatch(reason);
  });

  it("marks an expired token unauthenticated without echoing the token", async () => {
    // Prepare
    const { handler, logs } = setup();
    const token = await issueToken(mia, SECRET, { ttl: 60, now: new Date(Date.now() - 3_600_000) });

    // Act
    const result = (await handler(httpAuthorizerEvent(`Bearer ${token}`))) as HttpAuthorizerResult;

    // Assess
    expect(unauthenticatedReasonOf(result.context)).toMatch(/expired/);
    expect(JSON.stringify(result)).not.toContain(token);
    expect(String(logs[0]?.extra[0]?.reason)).toMatch(/expired/);
  });
});

describe("authorizer on WebSocket $connect", () => {
  it("allows ?token= with an IAM policy for the connect route and the identity as context", async () => {
    // Prepare
    const { handler } = setup();
    const token = await issueToken(mia, SECRET, { ttl: "1h" });

    // Act
    const result = (await handler(websocketConnectAuthorizerEvent({ token }))) as WebSocketAuthorizerResult;

    // Assess
    expect(result).toEqual({
      principalId: "acme/mia",
      policyDocument: {
        Version: "2012-10-17",
        Statement: [{ Action: "execute-api:Invoke", Effect: "Allow", Resource: WEBSOCKET_METHOD_ARN }],
      },
      // The token's own `exp`: the socket is closed (4001) and its frames refused after it.
      context: {
        login: "mia",
        tenant: "acme",
        projects: '["alpha"]',
        roles: '["project-admin:alpha"]',
        tokenExpiresAt: String(decodeJwt(token).exp),
      },
    });
  });

  it("falls back to an Authorization header for clients that can send one", async () => {
    // Prepare
    const { handler } = setup();
    const token = await issueToken(mia, SECRET, { ttl: "1h" });

    // Act
    const result = (await handler(
      websocketConnectAuthorizerEvent(null, { Authorization: `Bearer ${token}` }),
    )) as WebSocketAuthorizerResult;

    // Assess
    expect(result.context.login).toBe("mia");
  });

  it.each([
    ["no query string", null],
    ["an empty token", { token: "" }],
    ["a bad token", { token: "x.y.z" }],
  ])("answers Unauthorized for %s", async (_label, query) => {
    // Prepare
    const { handler } = setup();

    // Act
    const error = await rejection(handler(websocketConnectAuthorizerEvent(query)));

    // Assess
    expect(error.message).toBe("Unauthorized");
  });
});

describe("authorizer failure modes", () => {
  it.each([
    ["an empty object", {}],
    ["a TOKEN authorizer event", { type: "TOKEN", methodArn: WEBSOCKET_METHOD_ARN, authorizationToken: "x" }],
    ["a REQUEST event with neither routeArn nor methodArn", { type: "REQUEST", headers: {} }],
    ["null", null],
  ])("refuses %s as Unauthorized", async (_label, event) => {
    // Prepare
    const { handler } = setup();

    // Act
    const error = await rejection(handler(event as unknown as AuthorizerEvent));

    // Assess
    expect(error.message).toBe("Unauthorized");
  });

  it("fails with a configuration error (a 500, not a 401) and logs it when no key can be loaded", async () => {
    // Prepare
    const { handler, logs } = setup(() => Promise.reject(new AuthConfigurationError("No token verification key")));
    const token = await issueToken(mia, SECRET, { ttl: "1h" });

    // Act
    const error = await rejection(handler(httpAuthorizerEvent(`Bearer ${token}`)));

    // Assess
    expect(error).toBeInstanceOf(AuthConfigurationError);
    expect(logs.map((l) => l.level)).toEqual(["error"]);
  });
});

describe("identity from the authorizer context in handlers", () => {
  it("reads the HTTP API context under requestContext.authorizer.lambda", () => {
    // Prepare
    const base = httpApiV2Request();
    const event = { ...base, requestContext: { ...base.requestContext, authorizer: { lambda: toAuthorizerContext(mia) } } };

    // Act
    const identity = identityFromEvent(event);

    // Assess
    expect(identity).toEqual(mia);
  });

  it("reads the WebSocket context directly under requestContext.authorizer", () => {
    // Prepare
    const event = {
      requestContext: { connectionId: "c1", authorizer: { principalId: "acme/mia", integrationLatency: 12, ...toAuthorizerContext(mia) } },
    };

    // Act
    const identity = identityFromEvent(event);

    // Assess
    expect(identity).toEqual(mia);
  });

  it.each([
    ["no authorizer at all", httpApiV2Request()],
    ["an empty authorizer", { requestContext: { authorizer: {} } }],
    ["projects that are not JSON", { requestContext: { authorizer: { lambda: { ...toAuthorizerContext(mia), projects: "alpha" } } } }],
    [
      "projects that are not an array",
      { requestContext: { authorizer: { lambda: { ...toAuthorizerContext(mia), projects: '{"a":1}' } } } },
    ],
    ["a tampered project id", { requestContext: { authorizer: { lambda: { ...toAuthorizerContext(mia), projects: '["../beta"]' } } } }],
    [
      "roles as an array instead of JSON",
      { requestContext: { authorizer: { lambda: { ...toAuthorizerContext(mia), roles: ["tenant-admin"] } } } },
    ],
    ["a missing tenant", { requestContext: { authorizer: { lambda: { ...toAuthorizerContext(mia), tenant: undefined } } } }],
    ["no requestContext", { body: "{}" }],
  ])("fails closed with %s", (_label, event) => {
    // Act
    const read = () => identityFromEvent(event);

    // Assess
    expect(read).toThrow(Unauthenticated);
  });
});
