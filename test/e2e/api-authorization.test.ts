import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken } from "../../shared/auth/token-issuer.js";
import { ApiClient, LANE_WAIT_SECONDS, errorOf, skillMd } from "./support/api-client.js";
import type { ApiResponse, RequestBody } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack, TokenIdentity } from "./support/local-stack.js";

/**
 * API.md "Authentication and authorization" cell by cell, path traversal on every route, and
 * malformed bodies, against the real authorizer and handlers over HTTP.
 */

const TENANT = "acme";
const OTHER_TENANT = "globex";
const P1 = "p1";

const IDENTITIES = {
  admin: { tenant: TENANT, login: "admin", roles: ["tenant-admin"] },
  powner: { tenant: TENANT, login: "powner", projects: [P1], roles: [`project-admin:${P1}`] },
  member: { tenant: TENANT, login: "member", projects: [P1] },
  colleague: { tenant: TENANT, login: "colleague", projects: [P1] },
  outsider: { tenant: TENANT, login: "outsider", projects: ["p2"] },
  alice: { tenant: TENANT, login: "alice" },
  eve: { tenant: OTHER_TENANT, login: "eve", projects: [P1], roles: ["tenant-admin"] },
} satisfies Record<string, TokenIdentity>;
type Who = keyof typeof IDENTITIES;

let stack: LocalStack;
let anonymous: ApiClient;
const as = {} as Record<Who, ApiClient>;
/** A process of P1 in tenant acme, with a settled request and a composed turn. */
let processId: string;
let requestId: string;
let turnId: string;

beforeAll(async () => {
  stack = await startLocalStack();
  anonymous = new ApiClient(stack.httpUrl);
  for (const [who, identity] of Object.entries(IDENTITIES)) as[who as Who] = anonymous.as(await stack.token(identity));

  const seeded = await Promise.all([
    as.admin.putDocument(TENANT, "_tenant", "notes/seed.md", "tenant notes"),
    as.admin.putDocument(TENANT, P1, "notes/seed.md", "project notes"),
    as.alice.putDocument(TENANT, "_user_alice", "notes/seed.md", "alice notes"),
  ]);
  for (const response of seeded) expect(response.status).toBe(200);
  const spawned = await as.member.spawn(TENANT, "authz", { recipe: "default", projectId: P1 });
  expect(spawned.status).toBe(201);
  processId = spawned.json.processId;
  const steered = await as.member.steer(TENANT, processId, { command: "ACTIVATE", skillName: "code-review" }, LANE_WAIT_SECONDS);
  requestId = steered.json.requestId;
  const composed = await as.member.compose(TENANT, processId, { message: "hi" }, LANE_WAIT_SECONDS);
  turnId = composed.json.turnId;
});

afterAll(async () => {
  await stack?.close();
});

const expectError = (response: ApiResponse, status: number, code: string): void => {
  expect({ status: response.status, body: response.json }, `${response.status} ${response.text}`).toEqual({
    status,
    body: { error: { code, message: expect.any(String) } },
  });
};

interface RouteCall {
  name: string;
  method: string;
  path: (tenant: string) => string;
  body?: RequestBody;
}

/** Every API.md route with concrete values; `{tenant}` is left to the caller. */
const routes = (): RouteCall[] => [
  { name: "PUT document", method: "PUT", path: (t) => `/brain/${t}/projects/${P1}/documents/notes/new.md`, body: "text" },
  { name: "GET document", method: "GET", path: (t) => `/brain/${t}/projects/${P1}/documents/notes/seed.md` },
  { name: "DELETE document", method: "DELETE", path: (t) => `/brain/${t}/projects/${P1}/documents/notes/seed.md` },
  { name: "list documents", method: "GET", path: (t) => `/brain/${t}/projects/${P1}/documents?prefix=notes/` },
  { name: "effective skills", method: "GET", path: (t) => `/brain/${t}/skills/effective?projectId=${P1}` },
  { name: "effective skill", method: "GET", path: (t) => `/brain/${t}/skills/effective/code-review?projectId=${P1}` },
  { name: "skill problems", method: "GET", path: (t) => `/brain/${t}/skills/problems?projectId=${P1}` },
  { name: "active skills", method: "GET", path: (t) => `/brain/${t}/skills/active?processId=${processId}` },
  { name: "spawn", method: "POST", path: (t) => `/brain/${t}/sessions/authz-2/processes`, body: { recipe: "default", projectId: P1 } },
  { name: "GET process", method: "GET", path: (t) => `/brain/${t}/processes/${processId}` },
  {
    name: "steer",
    method: "POST",
    path: (t) => `/brain/${t}/processes/${processId}/skill`,
    body: { command: "ACTIVATE", skillName: "typescript-style" },
  },
  { name: "request status", method: "GET", path: (t) => `/brain/${t}/processes/${processId}/requests/${requestId}` },
  { name: "compose", method: "POST", path: (t) => `/brain/${t}/processes/${processId}/turns`, body: { message: "x" } },
  { name: "complete", method: "POST", path: (t) => `/brain/${t}/processes/${processId}/turns/${turnId}/complete`, body: { output: "x" } },
  { name: "composition", method: "GET", path: (t) => `/brain/${t}/processes/${processId}/composition?message=x` },
  { name: "GET turn", method: "GET", path: (t) => `/brain/${t}/processes/${processId}/turns/${turnId}` },
  { name: "tool", method: "POST", path: (t) => `/brain/${t}/processes/${processId}/tools/manual_list`, body: { args: {} } },
];

const call = (client: ApiClient, route: RouteCall, tenant = TENANT) =>
  client.send(route.method, route.path(tenant), route.body === undefined ? {} : { body: route.body });

describe("authentication", () => {
  const badTokens: [string, () => Promise<string | undefined>][] = [
    ["no token", async () => undefined],
    [
      "a token signed with another secret",
      () => issueToken({ tenant: TENANT, login: "admin", projects: [], roles: ["tenant-admin"] }, "not-the-secret", { ttl: 600 }),
    ],
    [
      "an expired token",
      () =>
        issueToken(
          { tenant: TENANT, login: "admin", projects: [], roles: ["tenant-admin"] },
          process.env.SKILLS_JWT_SECRET ?? "local-dev-secret",
          {
            ttl: 60,
            now: new Date(Date.now() - 3_600_000),
          },
        ),
    ],
    [
      "an unsigned alg:none token",
      async () =>
        `${b64({ alg: "none", typ: "JWT" })}.${b64({ sub: "admin", tenant: TENANT, projects: [], roles: ["tenant-admin"], exp: 9e9 })}.`,
    ],
    ["garbage", async () => "not.a.jwt"],
  ];

  it.each(badTokens)("answers 401 UNAUTHENTICATED on every route with %s", async (_what, make) => {
    // Prepare
    const client = anonymous.as(await make());

    // Act
    const responses = await Promise.all(routes().map(async (route) => [route.name, await call(client, route)] as const));

    // Assess
    for (const [name, response] of responses) {
      expect({ name, status: response.status, body: response.json }).toEqual({
        name,
        status: 401,
        body: { error: { code: "UNAUTHENTICATED", message: expect.any(String) } },
      });
    }
  });

  it("says what is missing and how to get a token when a request has none (not a bare 'Unauthorized')", async () => {
    // Act
    const response = await anonymous.send("GET", `/brain/${TENANT}/skills/effective`);

    // Assess
    expectError(response, 401, "UNAUTHENTICATED");
    const message = (response.json as { error: { message: string } }).error.message;
    expect(message).toMatch(/^Unauthenticated: Authorization header is missing; send 'Authorization: Bearer <token>'/);
    expect(message).toContain("npx skills token --tenant <tenant> --user <login> --projects <project>");
  });

  it("answers 401 for a Basic Authorization header", async () => {
    // Act
    const response = await anonymous.send("GET", `/brain/${TENANT}/skills/effective`, {
      headers: { authorization: "Basic YWRtaW46YWRtaW4=" },
    });

    // Assess
    expectError(response, 401, "UNAUTHENTICATED");
  });
});

const b64 = (value: object): string => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("documents: the API.md table, cell by cell", () => {
  const cells: { project: string; who: Who; read: boolean; write: boolean }[] = [
    { project: "_tenant", who: "member", read: true, write: false },
    { project: "_tenant", who: "outsider", read: true, write: false },
    { project: "_tenant", who: "powner", read: true, write: false },
    { project: "_tenant", who: "alice", read: true, write: false },
    { project: "_tenant", who: "admin", read: true, write: true },
    { project: P1, who: "member", read: true, write: false },
    { project: P1, who: "powner", read: true, write: true },
    { project: P1, who: "admin", read: true, write: true },
    { project: P1, who: "outsider", read: false, write: false },
    { project: P1, who: "alice", read: false, write: false },
    { project: "_user_alice", who: "alice", read: true, write: true },
    { project: "_user_alice", who: "member", read: false, write: false },
    { project: "_user_alice", who: "admin", read: false, write: false },
    { project: "_user_alice", who: "powner", read: false, write: false },
  ];
  /** Someone who may read the project, to see what a refused write left behind. */
  const readerOf = (project: string): Who => (project === "_user_alice" ? "alice" : "admin");

  it.each(cells)("$project read by $who: $read", async ({ project, who, read }) => {
    // Act
    const get = await as[who].getDocument(TENANT, project, "notes/seed.md");
    const list = await as[who].listDocuments(TENANT, project, "notes/");

    // Assess
    if (read) {
      expect(get.status).toBe(200);
      expect(get.text).toMatch(/notes$/);
      expect(list.status).toBe(200);
      expect(list.json.documents.map((d) => d.path)).toContain("notes/seed.md");
    } else {
      expectError(get, 403, "FORBIDDEN");
      expectError(list, 403, "FORBIDDEN");
    }
  });

  it.each(cells)("$project written by $who: $write", async ({ project, who, write }) => {
    // Prepare
    const path = `cells/${who}.md`;

    // Act
    const put = await as[who].putDocument(TENANT, project, path, `written by ${who}`);
    const afterPut = await as[readerOf(project)].getDocument(TENANT, project, path);
    const del = await as[who].deleteDocument(TENANT, project, "notes/seed.md");
    const afterDelete = await as[readerOf(project)].getDocument(TENANT, project, "notes/seed.md");
    if (del.status === 204) await as[readerOf(project)].putDocument(TENANT, project, "notes/seed.md", seedOf(project));

    // Assess
    if (write) {
      expect(put.status).toBe(200);
      expect(afterPut.text).toBe(`written by ${who}`);
      expect(del.status).toBe(204);
      expect(afterDelete.status).toBe(404);
    } else {
      expectError(put, 403, "FORBIDDEN");
      expect(afterPut.status).toBe(404);
      expectError(del, 403, "FORBIDDEN");
      expect(afterDelete.status).toBe(200);
    }
  });

  it("refuses a SKILL.md write to a project the caller may not write before validating it", async () => {
    // Act
    const response = await as.member.putDocument(TENANT, P1, "_vance/skills/x/SKILL.md", skillMd("title: only"));

    // Assess
    expectError(response, 403, "FORBIDDEN");
  });
});

const seedOf = (project: string): string => (project === "_tenant" ? "tenant notes" : project === P1 ? "project notes" : "alice notes");

describe("tenants are isolated", () => {
  it("answers 403 FORBIDDEN on every route whose {tenant} is not the token's, even for a tenant-admin", async () => {
    // Act
    const responses = await Promise.all(routes().map(async (route) => [route.name, await call(as.eve, route)] as const));

    // Assess
    for (const [name, response] of responses) {
      expect({ name, status: response.status, code: errorOf(response)?.code }).toEqual({ name, status: 403, code: "FORBIDDEN" });
    }
    expect((await as.admin.getDocument(TENANT, P1, "notes/seed.md")).status).toBe(200);
  });

  it("answers 404 PROCESS_NOT_FOUND for another tenant's process on every process route", async () => {
    // Prepare
    const processRoutes = routes().filter((route) => route.path(OTHER_TENANT).includes(processId));

    // Act
    const responses = await Promise.all(processRoutes.map(async (route) => [route.name, await call(as.eve, route, OTHER_TENANT)] as const));

    // Assess
    expect(processRoutes.length).toBe(9);
    for (const [name, response] of responses) {
      expect({ name, status: response.status, code: errorOf(response)?.code }).toEqual({ name, status: 404, code: "PROCESS_NOT_FOUND" });
    }
  });
});

describe("project membership", () => {
  const projectRoutes = (): RouteCall[] => routes().filter((route) => !route.name.endsWith("document") && route.name !== "list documents");

  /** Routes of the process itself that only its user may use (API.md "Processes belong to their user"). */
  const METADATA_ROUTES = new Set(["GET process", "active skills"]);
  const ownerRoutes = (): RouteCall[] =>
    projectRoutes().filter((route) => route.path(TENANT).includes(processId) && !METADATA_ROUTES.has(route.name));
  const openRoutes = (): RouteCall[] => {
    const ownerOnly = new Set(ownerRoutes().map((route) => route.name));
    return projectRoutes().filter((route) => !ownerOnly.has(route.name));
  };

  it("lets the process's own user list, spawn, read and steer; a tenant-admin everything but another user's process", async () => {
    // Act
    const owner = await Promise.all(projectRoutes().map(async (route) => [route.name, (await call(as.member, route)).status] as const));
    const admin = await Promise.all(openRoutes().map(async (route) => [route.name, (await call(as.admin, route)).status] as const));

    // Assess
    for (const [name, status] of [...owner, ...admin]) expect({ name, ok: status >= 200 && status < 300 }).toEqual({ name, ok: true });
  });

  it("answers 403 FORBIDDEN to anyone else of the tenant on the process's own routes: another member, a project-admin, a tenant-admin", async () => {
    // Prepare
    await stack.laneIdle();
    const before = (await as.member.process(TENANT, processId)).json;

    // Act
    const responses = await Promise.all(
      (["colleague", "powner", "admin"] as const).flatMap((who) =>
        ownerRoutes().map(async (route) => [`${who}: ${route.name}`, await call(as[who], route)] as const),
      ),
    );
    await stack.laneIdle();
    const after = (await as.member.process(TENANT, processId)).json;

    // Assess: nothing of the process (its rendered _user_ skills included) reached them, nothing changed
    expect(responses).toHaveLength(3 * 7);
    for (const [name, response] of responses) {
      expect({ name, status: response.status, code: errorOf(response)?.code }).toEqual({ name, status: 403, code: "FORBIDDEN" });
    }
    expect(after).toEqual(before);
  });

  it("opens the process metadata to a project-admin and a tenant-admin, not to another member", async () => {
    // Act
    const powner = await as.powner.process(TENANT, processId);
    const admin = await as.admin.process(TENANT, processId);
    const colleague = await as.colleague.process(TENANT, processId);

    // Assess
    expect([powner.status, admin.status]).toEqual([200, 200]);
    expectError(colleague, 403, "FORBIDDEN");
  });

  it("answers 403 FORBIDDEN to a non-member listing, spawning, reading or steering in the project", async () => {
    // Prepare
    await stack.laneIdle();
    const before = (await as.admin.process(TENANT, processId)).json;

    // Act
    const responses = await Promise.all(projectRoutes().map(async (route) => [route.name, await call(as.outsider, route)] as const));
    await stack.laneIdle();
    const after = (await as.admin.process(TENANT, processId)).json;

    // Assess
    expect(responses).toHaveLength(13);
    for (const [name, response] of responses) {
      expect({ name, status: response.status, code: errorOf(response)?.code }).toEqual({ name, status: 403, code: "FORBIDDEN" });
    }
    expect(after).toEqual(before);
  });
});

describe("path traversal", () => {
  const VARIANTS = ["..", "%2e%2e", "%2E%2E", "%252e%252e", ".%2e", "%2e.", ".", "%2e", "a\\b", "%5c", "%5C..", "..%5c..", "%255c"];

  /** One path per route, with the variant in place of each of its path parameters. */
  const traversalPaths = (variant: string): { name: string; method: string; path: string }[] => {
    const cases: { name: string; method: string; path: string }[] = [];
    for (const route of routes()) {
      const path = route.path(TENANT);
      const [pathOnly, query] = path.split("?");
      const segments = (pathOnly ?? "").split("/");
      const values = new Set([TENANT, P1, processId, requestId, turnId, "authz-2", "code-review", "manual_list", "notes"]);
      segments.forEach((segment, index) => {
        if (!values.has(segment)) return;
        const replaced = [...segments];
        replaced[index] = variant;
        cases.push({
          name: `${route.name} [${index}]`,
          method: route.method,
          path: `${replaced.join("/")}${query === undefined ? "" : `?${query}`}`,
        });
      });
    }
    return cases;
  };

  it.each(VARIANTS)("answers 400 INVALID_REQUEST for %s in any path segment of any route", async (variant) => {
    // Prepare
    const cases = traversalPaths(variant);

    // Act
    const responses = await Promise.all(
      cases.map(
        async (c) => [c, await as.admin.send(c.method, c.path, c.method === "GET" || c.method === "DELETE" ? {} : { body: "{}" })] as const,
      ),
    );

    // Assess
    expect(cases.length).toBeGreaterThanOrEqual(30);
    for (const [c, response] of responses) {
      expect({ path: c.path, status: response.status, code: errorOf(response)?.code }).toEqual({
        path: c.path,
        status: 400,
        code: "INVALID_REQUEST",
      });
    }
    expect((await as.admin.getDocument(TENANT, P1, "notes/seed.md")).status).toBe(200);
  });

  it("answers 400 for a traversal in a document path's inner segments and in the listing prefix", async () => {
    // Act
    const inner = await as.admin.send("PUT", `/brain/${TENANT}/projects/${P1}/documents/notes/%2e%2e/%2e%2e/%2e%2e/${OTHER_TENANT}/x.md`, {
      body: "x",
    });
    const prefix = await as.admin.send("GET", `/brain/${TENANT}/projects/${P1}/documents?prefix=..%2F_user_alice`);

    // Assess
    expectError(inner, 400, "INVALID_REQUEST");
    expectError(prefix, 400, "INVALID_REQUEST");
  });
});

describe("malformed bodies", () => {
  const bodyRoutes = (): RouteCall[] => routes().filter((route) => route.method === "POST");
  const huge = { padding: "x".repeat(200_000) };
  const MALFORMED: [string, RequestBody | undefined][] = [
    ["text that is not JSON", "{not json"],
    ["a JSON array", [1, 2]],
    ["JSON null", "null"],
    ["a JSON string", '"ACTIVATE"'],
    ["unknown fields", { unexpected: true }],
    ["a body over the size limit", huge],
  ];

  it.each(MALFORMED)("answers 400 INVALID_REQUEST for %s on every JSON route", async (_what, body) => {
    // Act
    const responses = await Promise.all(
      bodyRoutes().map(async (route) => [route.name, await as.member.send(route.method, route.path(TENANT), { body })] as const),
    );

    // Assess
    expect(responses).toHaveLength(5);
    for (const [name, response] of responses) {
      expect({ name, status: response.status, code: errorOf(response)?.code }).toEqual({ name, status: 400, code: "INVALID_REQUEST" });
    }
  });

  // A compose without a message and a tool call without args are valid requests (every field optional).
  it.each([
    ["no body", undefined],
    ["an empty body", ""],
  ])("answers 400 INVALID_REQUEST for %s on every route whose body has a required field", async (_what, body) => {
    // Act
    const required = bodyRoutes().filter((route) => route.name !== "compose" && route.name !== "tool");
    const responses = await Promise.all(
      required.map(
        async (route) => [route.name, await as.member.send(route.method, route.path(TENANT), body === undefined ? {} : { body })] as const,
      ),
    );

    // Assess
    expect(responses).toHaveLength(3);
    for (const [name, response] of responses) {
      expect({ name, status: response.status, code: errorOf(response)?.code }).toEqual({ name, status: 400, code: "INVALID_REQUEST" });
    }
  });

  it.each([
    ["spawn", `/sessions/s/processes`, { recipe: 7, projectId: P1 }],
    ["spawn", `/sessions/s/processes`, { recipe: "default" }],
    ["steer", "/processes/{id}/skill", { command: "EXPLODE", skillName: "code-review" }],
    ["steer", "/processes/{id}/skill", { command: "ACTIVATE" }],
    ["steer", "/processes/{id}/skill", { command: "ACTIVATE", skillName: ["code-review"] }],
    ["steer", "/processes/{id}/skill", { command: "ACTIVATE", skillName: "code-review", oneShot: "yes" }],
    ["steer", "/processes/{id}/skill", { command: "ACTIVATE", skillName: "code-review", args: { a: 1 } }],
    ["compose", "/processes/{id}/turns", { message: 42 }],
    ["complete", "/processes/{id}/turns/{turn}/complete", { final: true }],
    ["complete", "/processes/{id}/turns/{turn}/complete", { output: "x", final: "yes" }],
    ["tool", "/processes/{id}/tools/manual_read", { args: "docs/x.md" }],
    ["tool", "/processes/{id}/tools/manual_read", { args: { path: 5 } }],
  ])("answers 400 INVALID_REQUEST for a %s body with a wrong or missing field: %j", async (_route, template, body) => {
    // Prepare
    const path = `/brain/${TENANT}${template.replace("{id}", processId).replace("{turn}", turnId)}`;

    // Act
    const response = await as.member.send("POST", path, { body: body as RequestBody });

    // Assess
    expectError(response, 400, "INVALID_REQUEST");
  });

  it("answers 400 INVALID_REQUEST for a document over the size limit, and saves nothing", async () => {
    // Act
    const response = await as.admin.putDocument(TENANT, P1, "notes/huge.md", Buffer.alloc(5 * 1024 * 1024, 0x61));
    const lookup = await as.admin.getDocument(TENANT, P1, "notes/huge.md");

    // Assess
    expectError(response, 400, "INVALID_REQUEST");
    expect(lookup.status).toBe(404);
  });

  it("answers 400 INVALID_REQUEST for missing or empty query parameters", async () => {
    // Act
    const active = await as.member.send("GET", `/brain/${TENANT}/skills/active`);
    const empty = await as.member.send("GET", `/brain/${TENANT}/skills/effective?projectId=`);

    // Assess
    expectError(active, 400, "INVALID_REQUEST");
    expectError(empty, 400, "INVALID_REQUEST");
  });
});
