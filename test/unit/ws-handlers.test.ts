import { describe, expect, it, vi } from "vitest";
import { toAuthorizerContext } from "../../shared/auth/authorizer-context.js";
import { parseIdentity } from "../../shared/auth/identity.js";
import type { Identity } from "../../shared/auth/identity.js";
import { InMemoryConnectionStore } from "../../shared/connections/in-memory-connection-store.js";
import { RecordingConnectionPush } from "../support/recording-connection-push.js";
import { createWsConnectHandler } from "../../functions/ws-connect/handler.js";
import { createWsDefaultHandler } from "../../functions/ws-default/handler.js";
import { createWsDisconnectHandler } from "../../functions/ws-disconnect/handler.js";
import type { WsDefaultDeps } from "../../functions/ws-default/handler.js";

// The handler modules build SDK clients at import; their Node-version notice is noise here.
vi.hoisted(() => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
});

/** A token expiry no test reaches. */
const FAR_FUTURE = 4_102_444_800;
const ALICE = parseIdentity({ login: "alice", tenant: "acme", projects: ["proj1"], roles: [] });

/** Records log lines so a test can see what was reported. */
function recordingLogger() {
  const lines: { level: string; message: string }[] = [];
  const at = (level: string) => (message: string) => void lines.push({ level, message });
  return { lines, logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") } };
}

/** A WebSocket API event as API Gateway sends it after `$connect` was authorized. */
function wsEvent(
  routeKey: string,
  connectionId: string,
  who: Identity | null,
  extra: Record<string, unknown> = {},
  authorizer?: Record<string, unknown>,
) {
  return {
    requestContext: {
      routeKey,
      eventType: routeKey === "$connect" ? "CONNECT" : routeKey === "$disconnect" ? "DISCONNECT" : "MESSAGE",
      connectionId,
      domainName: "ws789.execute-api.eu-central-1.amazonaws.com",
      stage: "production",
      apiId: "ws789",
      requestId: "req-1",
      connectedAt: 1_700_000_000_000,
      requestTimeEpoch: 1_700_000_000_100,
      ...(authorizer
        ? { authorizer }
        : who
          ? { authorizer: { ...toAuthorizerContext(who, { tokenExpiresAt: FAR_FUTURE }), principalId: `${who.tenant}/${who.login}` } }
          : {}),
    },
    isBase64Encoded: false,
    ...extra,
  };
}

describe("ws-connect handler", () => {
  it("stores the connection with the identity from the authorizer context", async () => {
    // Prepare
    const connections = new InMemoryConnectionStore();
    const handler = createWsConnectHandler({ connections, logger: recordingLogger().logger });

    // Act
    const result = await handler(wsEvent("$connect", "c1", ALICE));

    // Assess
    expect(result).toEqual({ statusCode: 200 });
    expect((await connections.get("acme", "c1"))?.identity).toEqual({ login: "alice", tenant: "acme", projects: ["proj1"], roles: [] });
  });

  it.each([
    ["no authorizer context", undefined],
    ["a malformed projects claim", { login: "alice", tenant: "acme", projects: "not json", roles: "[]" }],
    ["an unauthenticated marker instead of an identity", { authenticated: "false", reason: "token has expired" }],
  ])("refuses the connection (401) and stores nothing with %s", async (_label, authorizer) => {
    // Prepare
    const connections = new InMemoryConnectionStore();
    const log = recordingLogger();
    const handler = createWsConnectHandler({ connections, logger: log.logger });

    // Act
    const result = await handler(wsEvent("$connect", "c1", null, {}, authorizer));

    // Assess
    expect(result).toMatchObject({ statusCode: 401 });
    expect(await connections.get("acme", "c1")).toBeUndefined();
    expect(log.lines.map((l) => l.level)).toContain("warn");
  });

  it("answers 400 for an event without a connectionId", async () => {
    // Prepare
    const handler = createWsConnectHandler({ connections: new InMemoryConnectionStore(), logger: recordingLogger().logger });

    // Act
    const result = await handler({ requestContext: { authorizer: toAuthorizerContext(ALICE) } });

    // Assess
    expect(result).toMatchObject({ statusCode: 400 });
  });
});

describe("ws-disconnect handler", () => {
  it("removes the connection and its subscriptions", async () => {
    // Prepare
    const connections = new InMemoryConnectionStore();
    await connections.put({ connectionId: "c1", identity: ALICE });
    await connections.subscribe("acme", "c1", "p1");
    const handler = createWsDisconnectHandler({ connections, logger: recordingLogger().logger });

    // Act
    const result = await handler(wsEvent("$disconnect", "c1", ALICE));

    // Assess
    expect(result).toEqual({ statusCode: 200 });
    expect(await connections.get("acme", "c1")).toBeUndefined();
    expect(await connections.subscribers("acme", "p1")).toEqual([]);
  });

  it("logs a failed clean-up and still answers 200 (TTL removes the rest)", async () => {
    // Prepare
    const connections = new InMemoryConnectionStore();
    connections.remove = async () => Promise.reject(new Error("DynamoDB unavailable"));
    const log = recordingLogger();
    const handler = createWsDisconnectHandler({ connections, logger: log.logger });

    // Act
    const result = await handler(wsEvent("$disconnect", "c1", ALICE));

    // Assess
    expect(result).toEqual({ statusCode: 200 });
    expect(log.lines).toContainEqual({ level: "error", message: expect.stringContaining("$disconnect") });
  });
});

describe("ws-default handler", () => {
  const defaultDeps = (push: RecordingConnectionPush, connections = new InMemoryConnectionStore()): WsDefaultDeps => ({
    app: {
      getProcess: async () => Promise.reject(new Error("not used")),
      getRequest: async () => undefined,
      steerSkill: async () => Promise.reject(new Error("not used")),
      listEffective: async () => [],
    },
    connections,
    push,
    logger: recordingLogger().logger,
  });

  it("answers a frame by pushing to the caller's connection and returns 200", async () => {
    // Prepare
    const push = new RecordingConnectionPush();
    const handler = createWsDefaultHandler(defaultDeps(push));

    // Act
    const result = await handler(
      wsEvent("$default", "c1", ALICE, { body: JSON.stringify({ type: "skill-list", projectId: "proj1", requestId: "l1" }) }),
    );

    // Assess
    expect(result).toEqual({ statusCode: 200 });
    expect(push.sent).toEqual([
      {
        connectionId: "c1",
        tenant: "acme",
        bytes: expect.any(Number),
        frame: { type: "skill-list-result", projectId: "proj1", requestId: "l1", skills: [], active: [] },
      },
    ]);
  });

  it("answers a binary frame with an error frame", async () => {
    // Prepare
    const push = new RecordingConnectionPush();
    const handler = createWsDefaultHandler(defaultDeps(push));

    // Act
    await handler(wsEvent("$default", "c1", ALICE, { body: "AAEC", isBase64Encoded: true }));

    // Assess
    expect(push.framesTo("c1")).toEqual([
      { type: "error", error: { code: "INVALID_REQUEST", message: expect.stringContaining("Binary") } },
    ]);
  });

  it("answers UNAUTHENTICATED when the event carries no identity, without touching the app", async () => {
    // Prepare
    const push = new RecordingConnectionPush();
    const handler = createWsDefaultHandler(defaultDeps(push));

    // Act
    const result = await handler(wsEvent("$default", "c1", null, { body: JSON.stringify({ type: "skill-list", projectId: "proj1" }) }));

    // Assess
    expect(result).toEqual({ statusCode: 200 });
    expect(push.framesTo("c1")).toEqual([{ type: "error", error: { code: "UNAUTHENTICATED", message: expect.any(String) } }]);
  });

  it("fails the invocation when the answer cannot be pushed at all", async () => {
    // Prepare
    const push = new RecordingConnectionPush();
    push.markFailing("c1");
    const handler = createWsDefaultHandler(defaultDeps(push));

    // Act
    const handling = handler(wsEvent("$default", "c1", ALICE, { body: "{}" }));

    // Assess
    await expect(handling).rejects.toThrow("push to c1 failed");
  });
});
