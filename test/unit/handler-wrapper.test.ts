import { describe, expect, it } from "vitest";
import { httpHandler } from "../../functions/_shared/http-handler.js";
import { publicRoute, route } from "../../functions/_shared/http-route.js";
import { Logger as PowertoolsLogger } from "@aws-lambda-powertools/logger";
import { vi } from "vitest";
import { reservedKeySafe } from "../../functions/_shared/observability.js";
import { SkillNotFound, TooManyRequests } from "../../shared/errors.js";
import { jsonResponse } from "../../shared/http/response.js";
import { httpEvent, IDENTITIES, lambdaContextFixture } from "../fixtures/events/http-handler-event.js";
import type { HttpEventInput } from "../fixtures/events/http-handler-event.js";
import type { Logger } from "../../shared/support/logger.js";

function setup() {
  const logs: { level: string; message: string; extra: Record<string, unknown>[] }[] = [];
  const logger: Logger = {
    debug: (message, ...extra) => logs.push({ level: "debug", message, extra }),
    info: (message, ...extra) => logs.push({ level: "info", message, extra }),
    warn: (message, ...extra) => logs.push({ level: "warn", message, extra }),
    error: (message, ...extra) => logs.push({ level: "error", message, extra }),
  };
  const seen: { params: Record<string, string>; login?: string }[] = [];
  const handler = httpHandler(
    [
      publicRoute("GET", "/health", async () => jsonResponse(200, { status: "ok" })),
      route("GET", "/brain/{tenant}/things/{name}", async (request) => {
        seen.push({ params: { ...request.params }, login: request.identity.login });
        return jsonResponse(200, { name: request.param("name"), tenant: request.identity.tenant, user: request.user });
      }),
      route("POST", "/brain/{tenant}/things/{name}", async () => {
        throw new SkillNotFound("thing");
      }),
      route("GET", "/brain/{tenant}/busy", async () => {
        throw new TooManyRequests("At most 2 concurrent spawns per user; retry when one finished", 3);
      }),
      route("GET", "/brain/{tenant}/boom", async () => {
        throw new Error("database password is hunter2");
      }),
      route("GET", "/brain/{tenant}/files/{path+}", async (request) => jsonResponse(200, { path: request.param("path") })),
    ],
    { logger },
  );
  const call = async (input: HttpEventInput) => {
    const result = await handler(httpEvent(input), lambdaContextFixture());
    return { status: result.statusCode, headers: result.headers ?? {}, body: JSON.parse(result.body ?? "null") as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  return { handler, call, logs, seen };
}

describe("httpHandler: routing and identity", () => {
  it("routes to the handler with decoded path parameters and the token's identity", async () => {
    // Prepare
    const { call } = setup();

    // Act
    const reply = await call({ method: "GET", path: "/brain/acme/things/caf%C3%A9" });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ name: "café", tenant: "acme", user: { login: "alice", roles: [], projects: ["proj1"] } });
  });

  it("answers /health without any identity", async () => {
    // Prepare
    const { call } = setup();

    // Act
    const reply = await call({ method: "GET", path: "/health", as: "none" });

    // Assess
    expect(reply).toMatchObject({ status: 200, body: { status: "ok" } });
  });

  it.each([
    ["no authorizer context at all", "none" as const, /authorizer context is missing/],
    ["a request the authorizer marked unauthenticated", { unauthenticated: "token has expired" }, /token has expired/],
  ])("answers 401 UNAUTHENTICATED in API.md's shape for %s, without calling the route", async (_label, as, message) => {
    // Prepare
    const { call, seen } = setup();

    // Act
    const reply = await call({ method: "GET", path: "/brain/acme/things/x", as });

    // Assess
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ error: { code: "UNAUTHENTICATED", message: expect.stringMatching(message) } });
    expect(seen).toEqual([]);
  });

  it("refuses a malformed authorizer context instead of acting anonymously", async () => {
    // Prepare
    const { handler } = setup();
    const event = httpEvent({ method: "GET", path: "/brain/acme/things/x" });
    (event.requestContext.authorizer as { lambda: Record<string, string> }).lambda = {
      login: "alice",
      tenant: "acme",
      projects: "not json",
      roles: "[]",
    };

    // Act
    const result = await handler(event, lambdaContextFixture());

    // Assess
    expect(result.statusCode).toBe(401);
    expect(JSON.parse(result.body ?? "")).toMatchObject({ error: { code: "UNAUTHENTICATED" } });
  });

  it("answers 403 FORBIDDEN when the path names another tenant, before the route runs", async () => {
    // Prepare
    const { call, seen } = setup();

    // Act
    const reply = await call({ method: "GET", path: "/brain/globex/things/x", as: IDENTITIES.alice });

    // Assess
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe("FORBIDDEN");
    expect(seen).toEqual([]);
  });

  it("answers 404 for an unknown route and 405 with Allow for a known path with another method", async () => {
    // Prepare
    const { call } = setup();

    // Act
    const unknown = await call({ method: "GET", path: "/brain/acme/nothing-here" });
    const wrongMethod = await call({ method: "DELETE", path: "/brain/acme/things/x" });

    // Assess
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { code: "NOT_FOUND", message: "No route for GET /brain/acme/nothing-here" } });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe("GET, POST");
    expect(wrongMethod.body.error.code).toBe("METHOD_NOT_ALLOWED");
  });

  it("maps a domain error through the one error table", async () => {
    // Prepare
    const { call } = setup();

    // Act
    const reply = await call({ method: "POST", path: "/brain/acme/things/x" });

    // Assess
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: { code: "SKILL_NOT_FOUND", message: "Skill 'thing' not found" } });
  });

  it("logs a refusal's reason under a key the Powertools logger keeps (`message` is its own)", async () => {
    // Prepare
    const { call, logs } = setup();

    // Act
    await call({ method: "POST", path: "/brain/acme/things/x" });

    // Assess
    const refused = logs.find((l) => l.message === "Request refused");
    expect(refused?.extra[0]).toMatchObject({ status: 404, code: "SKILL_NOT_FOUND", reason: "Skill 'thing' not found" });
    expect(refused?.extra[0]).not.toHaveProperty("message");
  });

  it("answers a bug with a generic 500 and logs the cause, never leaking it", async () => {
    // Prepare
    const { call, logs } = setup();

    // Act
    const reply = await call({ method: "GET", path: "/brain/acme/boom" });

    // Assess
    expect(reply.status).toBe(500);
    expect(reply.body).toEqual({ error: { code: "INTERNAL", message: "Internal error" } });
    expect(JSON.stringify(reply.body)).not.toContain("hunter2");
    expect(logs.filter((l) => l.level === "error")).toHaveLength(1);
    expect(String(logs[0]?.extra[0]?.error)).toContain("hunter2");
  });
});

describe("httpHandler: paths", () => {
  it.each([
    ["..", "/brain/acme/files/../secret"],
    ["encoded %2e%2e", "/brain/acme/files/%2e%2e/secret"],
    ["double-encoded %252e%252e", "/brain/acme/files/%252e%252e/secret"],
    ["mixed .%2e", "/brain/acme/files/.%2e/secret"],
    ["a single dot", "/brain/acme/files/./secret"],
    ["a backslash", "/brain/acme/files/a\\..\\b"],
    ["an encoded backslash", "/brain/acme/files/a%5c..%5cb"],
    ["a dot segment in an unknown route", "/nowhere/../health"],
    ["a dot segment before the tenant", "/brain/../acme/things/x"],
    ["malformed percent-encoding", "/brain/acme/files/%zz"],
    ["overlong UTF-8 for a dot", "/brain/acme/files/%c0%ae%c0%ae/x"],
    ["an encoded slash inside a segment", "/brain/acme/things/a%2fb"],
  ])("answers 400 INVALID_REQUEST for %s, whatever the route, and runs nothing", async (_label, path) => {
    // Prepare
    const { call, seen } = setup();

    // Act
    const reply = await call({ method: "GET", path });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe("INVALID_REQUEST");
    expect(seen).toEqual([]);
  });

  it("checks the path before the identity: a traversal without a token is still a 400", async () => {
    // Prepare
    const { call } = setup();

    // Act
    const reply = await call({ method: "GET", path: "/brain/acme/files/%2e%2e/x", as: "none" });

    // Assess
    expect(reply.status).toBe(400);
  });

  it("passes a greedy path through joined with '/'", async () => {
    // Prepare
    const { call } = setup();

    // Act
    const reply = await call({ method: "GET", path: "/brain/acme/files/_vance/skills/x/SKILL.md" });

    // Assess
    expect(reply.body).toEqual({ path: "_vance/skills/x/SKILL.md" });
  });
});

describe("httpHandler: malformed events", () => {
  it.each([
    ["null", null],
    ["a string", "GET /health"],
    ["an event without a method", { rawPath: "/health", requestContext: {} }],
    ["an event without a path", { requestContext: { http: { method: "GET" } } }],
    ["a body that is not a string", { rawPath: "/health", requestContext: { http: { method: "GET" } }, body: { a: 1 } }],
    ["headers that are not strings", { rawPath: "/health", requestContext: { http: { method: "GET" } }, headers: { a: 1 } }],
  ])("answers 400 for %s, never a 500", async (_label, event) => {
    // Prepare
    const { handler } = setup();

    // Act
    const result = await handler(event);

    // Assess
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body ?? "")).toMatchObject({
      error: { code: "INVALID_REQUEST", message: expect.stringMatching(/Malformed request event/) },
    });
  });
});

describe("httpHandler: refusals in the log", () => {
  it("logs a refusal's reason under `reason`, not under a key the Powertools Logger reserves", async () => {
    // Prepare
    const { call, logs } = setup();

    // Act
    await call({ method: "POST", path: "/brain/acme/things/x" });

    // Assess
    const refused = logs.find((l) => l.message === "Request refused");
    expect(refused?.extra[0]).toMatchObject({ status: 404, code: "SKILL_NOT_FOUND", reason: "Skill 'thing' not found" });
    expect(Object.keys(refused?.extra[0] ?? {})).not.toContain("message");
  });

  it("answers a limit with 429 TOO_MANY_REQUESTS and Retry-After", async () => {
    // Prepare
    const { call } = setup();

    // Act
    const reply = await call({ method: "GET", path: "/brain/acme/busy" });

    // Assess
    expect(reply.status).toBe(429);
    expect(reply.headers["retry-after"]).toBe("3");
    expect(reply.body.error).toEqual({ code: "TOO_MANY_REQUESTS", message: expect.stringContaining("concurrent spawns") });
  });
});

describe("reservedKeySafe: attributes the Powertools Logger would drop", () => {
  const captured = (): { lines: () => Record<string, unknown>[]; restore: () => void } => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    return {
      lines: () =>
        written
          .join("")
          .split("\n")
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line) as Record<string, unknown>),
      restore: () => spy.mockRestore(),
    };
  };

  it.each(["message", "level", "service", "timestamp", "sampling_rate"])(
    "keeps a custom `%s` attribute as `field_%s` in the real Powertools output",
    (key) => {
      // Prepare
      const out = captured();
      const logger = reservedKeySafe(new PowertoolsLogger({ serviceName: "unit", logLevel: "INFO" }));

      // Act
      try {
        logger.info("Request refused", { code: "FORBIDDEN", [key]: "the reason that must survive" });
      } finally {
        out.restore();
      }

      // Assess
      const lines = out.lines();
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ message: "Request refused", code: "FORBIDDEN", [`field_${key}`]: "the reason that must survive" });
    },
  );

  it("passes attributes without reserved keys through unchanged", () => {
    // Prepare
    const seen: Record<string, unknown>[] = [];
    const logger = reservedKeySafe({
      debug: () => undefined,
      info: (_m, ...extra) => void seen.push(...extra),
      warn: () => undefined,
      error: () => undefined,
    });
    const attributes = { reason: "r", code: "FORBIDDEN" };

    // Act
    logger.info("x", attributes);

    // Assess
    expect(seen).toEqual([attributes]);
    expect(seen[0]).toBe(attributes);
  });
});
