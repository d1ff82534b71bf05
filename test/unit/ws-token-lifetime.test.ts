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

const NOW = new Date("2030-01-01T12:00:00Z");
const NOW_S = Math.floor(NOW.getTime() / 1000);
const clock = () => NOW;
const ALICE = parseIdentity({ login: "alice", tenant: "acme", projects: ["proj1"], roles: [] });
const BOB = parseIdentity({ login: "bob", tenant: "acme", projects: ["proj1"], roles: [] });
const ALICE_ELSEWHERE = parseIdentity({ login: "alice", tenant: "globex", projects: ["proj1"], roles: [] });
const ADMIN = parseIdentity({ login: "root", tenant: "acme", projects: [], roles: ["tenant-admin"] });

const logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** A WebSocket API event after an authorized `$connect`; `exp` is the token's expiry (epoch seconds), `null` for none. */
function wsEvent(routeKey: string, connectionId: string, who: Identity, exp: number | null | string, extra: Record<string, unknown> = {}) {
  const context =
    exp === null
      ? toAuthorizerContext(who)
      : typeof exp === "string"
        ? { ...toAuthorizerContext(who), tokenExpiresAt: exp }
        : toAuthorizerContext(who, { tokenExpiresAt: exp });
  return {
    requestContext: { routeKey, connectionId, authorizer: { ...context, principalId: `${who.tenant}/${who.login}` } },
    isBase64Encoded: false,
    ...extra,
  };
}

const connectHandler = (connections: InMemoryConnectionStore, max = 3) =>
  createWsConnectHandler({ connections, logger, clock, limits: { maxConnectionsPerIdentity: max, retryAfterSeconds: 7 } });

describe("$connect and the token's expiry", () => {
  it.each([
    ["an expired token", NOW_S - 1],
    ["a token expiring this very second", NOW_S],
    ["no expiry in the context", null],
    ["an expiry that is not a number", "soon"],
    ["a negative expiry", "-5"],
    ["a fractional expiry", "1.5e12"],
  ])("refuses %s with 401 in the API.md error shape and stores nothing", async (_label, exp) => {
    // Prepare
    const connections = new InMemoryConnectionStore({ clock });

    // Act
    const result = await connectHandler(connections)(wsEvent("$connect", "c1", ALICE, exp));

    // Assess
    expect(result).toMatchObject({ statusCode: 401 });
    expect(JSON.parse((result as { body: string }).body)).toEqual({ error: { code: "UNAUTHENTICATED", message: expect.any(String) } });
    expect(await connections.get("acme", "c1")).toBeUndefined();
  });

  it("stores the connection no longer than its token lives", async () => {
    // Prepare
    const connections = new InMemoryConnectionStore({ clock });

    // Act
    await connectHandler(connections)(wsEvent("$connect", "c1", ALICE, NOW_S + 60));

    // Assess
    expect((await connections.get("acme", "c1"))?.expiresAt).toBe(NOW_S + 60);
  });
});

describe("$default frames after the token's expiry", () => {
  const deps = (push: RecordingConnectionPush, connections: InMemoryConnectionStore, now: () => Date = clock): WsDefaultDeps => ({
    app: {
      getProcess: async () => Promise.reject(new Error("not used")),
      getRequest: async () => undefined,
      steerSkill: async () => Promise.reject(new Error("must not be reached after exp")),
      listEffective: async () => Promise.reject(new Error("must not be reached after exp")),
    },
    connections,
    push,
    logger,
    clock: now,
  });

  it.each([
    ["skill-list", { type: "skill-list", projectId: "proj1", requestId: "r1" }],
    ["process-skill", { type: "process-skill", processId: "p1", command: "CLEAR_ALL", requestId: "r1" }],
    ["process-subscribe", { type: "process-subscribe", processId: "p1", requestId: "r1" }],
    ["process-skill-script-result", { type: "process-skill-script-result", invocationId: "i1", result: 1 }],
    ["an unparsable frame", "{not json"],
  ])("refuses %s with UNAUTHENTICATED, routes nothing and closes the connection", async (_label, frame) => {
    // Prepare
    const connections = new InMemoryConnectionStore({ clock });
    await connections.put({ connectionId: "c1", identity: ALICE, tokenExpiresAt: NOW_S + 3600 });
    const push = new RecordingConnectionPush({ connections });
    const body = typeof frame === "string" ? frame : JSON.stringify(frame);

    // Act: the token expired one second ago.
    const result = await createWsDefaultHandler(deps(push, connections))(wsEvent("$default", "c1", ALICE, NOW_S - 1, { body }));

    // Assess
    expect(result).toEqual({ statusCode: 200 });
    expect(push.framesTo("c1")).toEqual([
      { type: "error", error: { code: "UNAUTHENTICATED", message: expect.stringContaining("expired") } },
    ]);
    expect(push.disconnected).toEqual(["c1"]);
    expect(await connections.get("acme", "c1")).toBeUndefined();
  });

  it("refuses a frame that arrives in the expiry second itself (no clock tolerance on a live socket)", async () => {
    // Prepare
    const connections = new InMemoryConnectionStore({ clock });
    const push = new RecordingConnectionPush({ connections });

    // Act
    await createWsDefaultHandler(deps(push, connections))(
      wsEvent("$default", "c1", ALICE, NOW_S, { body: JSON.stringify({ type: "skill-list", projectId: "proj1" }) }),
    );

    // Assess
    expect(push.disconnected).toEqual(["c1"]);
  });

  it("still answers a frame before the expiry, and subscriptions end with the token", async () => {
    // Prepare
    const connections = new InMemoryConnectionStore({ clock });
    const push = new RecordingConnectionPush({ connections });
    const app: WsDefaultDeps["app"] = {
      getProcess: async () => ({ processId: "p1", projectId: "proj1", owner: "alice", activeSkills: [], status: "ACTIVE" }) as never,
      getRequest: async () => undefined,
      steerSkill: async () => Promise.reject(new Error("not used")),
      listEffective: async () => [],
    };
    const handler = createWsDefaultHandler({ ...deps(push, connections), app });

    // Act
    await handler(
      wsEvent("$default", "c1", ALICE, NOW_S + 90, { body: JSON.stringify({ type: "skill-list", projectId: "proj1", requestId: "l1" }) }),
    );

    // Assess
    expect(push.framesTo("c1")).toMatchObject([{ type: "skill-list-result", requestId: "l1" }]);
    expect(push.disconnected).toEqual([]);
  });

  it("caps a subscription's expiry at the notAfter the router passes (the token's exp)", async () => {
    // Prepare
    let now = NOW;
    const connections = new InMemoryConnectionStore({ clock: () => now });

    // Act
    await connections.subscribe("acme", "c1", "p1", { notAfter: NOW_S + 90 });
    const before = await connections.subscribers("acme", "p1");
    now = new Date((NOW_S + 90) * 1000);
    const after = await connections.subscribers("acme", "p1");

    // Assess
    expect(before).toEqual(["c1"]);
    expect(after).toEqual([]);
  });
});

describe("per-identity cap on open sockets at $connect", () => {
  it("answers 429 TOO_MANY_REQUESTS with Retry-After past the cap and stores nothing", async () => {
    // Prepare
    const connections = new InMemoryConnectionStore({ clock });
    const handler = connectHandler(connections, 3);
    for (const id of ["c1", "c2", "c3"]) await handler(wsEvent("$connect", id, ALICE, NOW_S + 600));

    // Act
    const result = (await handler(wsEvent("$connect", "c4", ALICE, NOW_S + 600))) as {
      statusCode: number;
      headers: Record<string, string>;
      body: string;
    };

    // Assess
    expect(result.statusCode).toBe(429);
    expect(result.headers["Retry-After"]).toBe("7");
    expect(JSON.parse(result.body)).toEqual({ error: { code: "TOO_MANY_REQUESTS", message: expect.stringContaining("3") } });
    expect(await connections.get("acme", "c4")).toBeUndefined();
    expect(await connections.countOpen("acme", "alice")).toBe(3);
  });

  it("counts per user and tenant: another user, the same login in another tenant, and an admin are not affected", async () => {
    // Prepare
    const connections = new InMemoryConnectionStore({ clock });
    const handler = connectHandler(connections, 2);
    for (const id of ["c1", "c2"]) await handler(wsEvent("$connect", id, ALICE, NOW_S + 600));

    // Act
    const results = await Promise.all([
      handler(wsEvent("$connect", "b1", BOB, NOW_S + 600)),
      handler(wsEvent("$connect", "g1", ALICE_ELSEWHERE, NOW_S + 600)),
      handler(wsEvent("$connect", "a1", ADMIN, NOW_S + 600)),
    ]);

    // Assess
    expect(results).toEqual([{ statusCode: 200 }, { statusCode: 200 }, { statusCode: 200 }]);
  });

  it("frees a slot on $disconnect", async () => {
    // Prepare
    const connections = new InMemoryConnectionStore({ clock });
    const handler = connectHandler(connections, 1);
    await handler(wsEvent("$connect", "c1", ALICE, NOW_S + 600));
    await createWsDisconnectHandler({ connections, logger })(wsEvent("$disconnect", "c1", ALICE, NOW_S + 600));

    // Act
    const result = await handler(wsEvent("$connect", "c2", ALICE, NOW_S + 600));

    // Assess
    expect(result).toEqual({ statusCode: 200 });
  });

  it("does not count connections whose token has expired (they are closed on their next frame)", async () => {
    // Prepare
    let now = NOW;
    const connections = new InMemoryConnectionStore({ clock: () => now });
    const handler = createWsConnectHandler({
      connections,
      logger,
      clock: () => now,
      limits: { maxConnectionsPerIdentity: 1, retryAfterSeconds: 7 },
    });
    await handler(wsEvent("$connect", "c1", ALICE, NOW_S + 60));
    now = new Date((NOW_S + 61) * 1000);

    // Act
    const result = await handler(wsEvent("$connect", "c2", ALICE, NOW_S + 600));

    // Assess
    expect(result).toEqual({ statusCode: 200 });
  });

  it("uses the configured default of 20 when no limit is given", async () => {
    // Prepare
    const connections = new InMemoryConnectionStore({ clock });
    const handler = createWsConnectHandler({ connections, logger, clock });
    for (let i = 0; i < 20; i++) await handler(wsEvent("$connect", `c${i}`, ALICE, NOW_S + 600));

    // Act
    const result = await handler(wsEvent("$connect", "c20", ALICE, NOW_S + 600));

    // Assess
    expect(result).toMatchObject({ statusCode: 429 });
  });
});
