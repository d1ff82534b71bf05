import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FOOT_NOT_AVAILABLE } from "../../shared/scripts/skill-script-runner.js";
import { ApiClient, LANE_WAIT_SECONDS, errorOf, skillMd } from "./support/api-client.js";
import type { ApiResponse } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack, TokenIdentity } from "./support/local-stack.js";
import { connectWebSocket } from "./support/ws-client.js";
import type { WsTestClient } from "./support/ws-client.js";

/**
 * API.md "Processes belong to their user" over the local stack: alice's process resolves her
 * `_user_alice` level; another member of the project and a tenant-admin must never receive a
 * byte of it — by composition, turns, skill_reference_doc, skill_read_file, script tools, manual_list/manual_read,
 * request status, metadata or WebSocket frames — and FOOT calls reach alice's socket only.
 */

const TENANT = "acme";
const P1 = "p1";
/** Every private text carries this marker, so one `not.toContain` covers them all. */
const SECRET = "SECRET-OF-ALICE";

const IDENTITIES = {
  alice: { tenant: TENANT, login: "alice", projects: [P1] },
  bob: { tenant: TENANT, login: "bob", projects: [P1] },
  admin: { tenant: TENANT, login: "ada", roles: ["tenant-admin"] },
  padmin: { tenant: TENANT, login: "pat", projects: [P1], roles: [`project-admin:${P1}`] },
} satisfies Record<string, TokenIdentity>;
type Who = keyof typeof IDENTITIES;
const OTHERS = ["bob", "admin", "padmin"] as const satisfies readonly Who[];

const DIARY = skillMd(
  [
    "title: Diary",
    "description: Alice's private notes",
    "version: 1.0.0",
    `action: '${SECRET} action'`,
    "referenceDocs:",
    "  - { title: Notes, file: references/notes.md, loadMode: ON_DEMAND, summary: private notes }",
    "scripts:",
    "  - { name: peek, target: BRAIN, file: scripts/peek.js }",
    "  - { name: local, target: FOOT, file: scripts/local.js }",
  ].join("\n"),
  `${SECRET} body.`,
);
/** A project skill whose manual folder alice fills at her own level. */
const HANDBOOK = skillMd(
  ["title: Handbook", "description: The project's manuals", "version: 1.0.0", "manualPaths: [manuals/private]"].join("\n"),
  "Use the manuals.",
);

let stack: LocalStack;
const tokens = {} as Record<Who, string>;
const as = {} as Record<Who, ApiClient>;
let processId: string;
let requestId: string;
let turnId: string;

const expectNoSecret = (label: string, response: ApiResponse): void => {
  expect(response.text, `${label}: ${response.status}`).not.toContain(SECRET);
};

const expectForbidden = (label: string, response: ApiResponse): void => {
  expect({ label, status: response.status, code: errorOf(response)?.code }).toEqual({ label, status: 403, code: "FORBIDDEN" });
  expectNoSecret(label, response);
};

beforeAll(async () => {
  stack = await startLocalStack();
  const anonymous = new ApiClient(stack.httpUrl);
  for (const [who, identity] of Object.entries(IDENTITIES)) {
    tokens[who as Who] = await stack.token(identity);
    as[who as Who] = anonymous.as(tokens[who as Who]);
  }
  const user = "_user_alice";
  const seeded = await Promise.all([
    as.alice.putDocument(TENANT, user, "_vance/skills/diary/SKILL.md", DIARY),
    as.alice.putDocument(TENANT, user, "_vance/skills/diary/references/notes.md", `${SECRET} reference`),
    as.alice.putDocument(TENANT, user, "_vance/skills/diary/scripts/peek.js", `'${SECRET} script ' + JSON.stringify(args)`),
    as.alice.putDocument(TENANT, user, "_vance/skills/diary/scripts/local.js", `'${SECRET} foot'`),
    as.alice.putDocument(TENANT, user, "manuals/private/plan.md", `${SECRET} manual`),
    as.padmin.putDocument(TENANT, P1, "_vance/skills/handbook/SKILL.md", HANDBOOK),
    as.padmin.putDocument(TENANT, P1, "manuals/private/shared.md", "project manual"),
  ]);
  for (const response of seeded) expect(response.status, response.text).toBe(200);

  const spawned = await as.alice.spawn(TENANT, "diary-session", { recipe: "default", projectId: P1 });
  expect(spawned.status, spawned.text).toBe(201);
  processId = spawned.json.processId;
  for (const skillName of ["diary", "handbook"]) {
    const activated = await as.alice.steer(
      TENANT,
      processId,
      { command: "ACTIVATE", skillName, requestId: `activate-${skillName}` },
      LANE_WAIT_SECONDS,
    );
    expect(activated.status, activated.text).toBe(200);
  }
  requestId = "activate-diary";
  const composed = await as.alice.compose(TENANT, processId, { message: "what did I write?" }, LANE_WAIT_SECONDS);
  expect(composed.status, composed.text).toBe(200);
  turnId = composed.json.turnId;
});

afterAll(async () => {
  await stack?.close();
});

describe("the owner's process (sanity: the private content is really there)", () => {
  it("shows alice her own private skill through every route", async () => {
    // Act
    const preview = await as.alice.composition(TENANT, processId, "again");
    const reference = await as.alice.tool(TENANT, processId, "skill_reference_doc", { skill: "diary", title: "Notes" });
    const script = await as.alice.tool(TENANT, processId, "skill_diary__peek", {});
    const manual = await as.alice.tool(TENANT, processId, "manual_read", { path: "manuals/private/plan.md" });
    const file = await as.alice.tool(TENANT, processId, "skill_read_file", { skill: "diary", path: "references/notes.md" });

    // Assess
    for (const response of [preview, reference, script, manual, file]) {
      expect(response.status, response.text).toBe(200);
      expect(response.text).toContain(SECRET);
    }
  });
});

describe("nobody but the owner receives _user_ content (HTTP)", () => {
  const ownerOnly = (): { name: string; method: string; path: string; body?: Record<string, unknown> }[] => {
    const base = `/brain/${TENANT}/processes/${processId}`;
    return [
      { name: "composition", method: "GET", path: `${base}/composition?message=hello` },
      { name: "compose", method: "POST", path: `${base}/turns`, body: { message: "hello" } },
      { name: "complete", method: "POST", path: `${base}/turns/${turnId}/complete`, body: { output: "x" } },
      { name: "steer", method: "POST", path: `${base}/skill`, body: { command: "CLEAR_ALL" } },
      { name: "request status", method: "GET", path: `${base}/requests/${requestId}` },
      {
        name: "skill_reference_doc",
        method: "POST",
        path: `${base}/tools/skill_reference_doc`,
        body: { args: { skill: "diary", title: "Notes" } },
      },
      {
        name: "skill_read_file",
        method: "POST",
        path: `${base}/tools/skill_read_file`,
        body: { args: { skill: "diary", path: "references/notes.md" } },
      },
      { name: "script tool", method: "POST", path: `${base}/tools/skill_diary__peek`, body: { args: {} } },
      { name: "FOOT script tool", method: "POST", path: `${base}/tools/skill_diary__local`, body: { args: {} } },
      { name: "manual_list", method: "POST", path: `${base}/tools/manual_list`, body: { args: {} } },
      { name: "manual_read", method: "POST", path: `${base}/tools/manual_read`, body: { args: { path: "manuals/private/plan.md" } } },
    ];
  };

  it.each(OTHERS)("answers %s 403 FORBIDDEN on every route that uses alice's process, changing nothing", async (who) => {
    // Prepare
    await stack.laneIdle();
    const before = (await as.alice.process(TENANT, processId)).json;

    // Act
    const responses = await Promise.all(
      ownerOnly().map(
        async (route) =>
          [
            route.name,
            await as[who].send(route.method, route.path, route.body ? { body: route.body, wait: LANE_WAIT_SECONDS } : {}),
          ] as const,
      ),
    );
    await stack.laneIdle();
    const after = (await as.alice.process(TENANT, processId)).json;

    // Assess
    expect(responses).toHaveLength(11);
    for (const [name, response] of responses) expectForbidden(`${who} ${name}`, response);
    expect(after).toEqual(before);
  });

  it.each(["admin", "padmin"] as const)("lets %s read the metadata with alice's pending texts withheld", async (who) => {
    // Act
    const metadata = await as[who].process(TENANT, processId);
    const active = await as[who].active(TENANT, processId);

    // Assess
    expect(metadata.status).toBe(200);
    expect(metadata.json.activeSkills.map((s: { name: string }) => s.name)).toEqual(["diary", "handbook"]);
    expectNoSecret(`${who} metadata`, metadata);
    expect(active.status).toBe(200);
    expectNoSecret(`${who} active skills`, active);
  });

  it.each(OTHERS)(
    "answers %s 403 on /mcp with alice's processId, so no MCP tool hands out her process's content (issue 28)",
    async (who) => {
      // Act
      const initialize = {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "e2e", version: "1" } },
      };
      const reply = await as[who].send("POST", `/brain/${TENANT}/mcp?projectId=${P1}&processId=${processId}`, { body: initialize });

      // Assess
      expectForbidden(`${who} mcp`, reply);
    },
  );

  it("refuses bob the metadata of alice's process", async () => {
    // Act
    const metadata = await as.bob.process(TENANT, processId);

    // Assess
    expectForbidden("bob metadata", metadata);
  });

  it("gives bob, in his own process with the same project skill, only his own level: alice's manual and skill stay invisible", async () => {
    // Prepare
    const own = await as.bob.spawn(TENANT, "diary-session", { recipe: "default", projectId: P1 });
    const bobsProcess = own.json.processId as string;
    await as.bob.steer(TENANT, bobsProcess, { command: "ACTIVATE", skillName: "handbook" }, LANE_WAIT_SECONDS);

    // Act
    const diary = await as.bob.steer(TENANT, bobsProcess, { command: "ACTIVATE", skillName: "diary" }, LANE_WAIT_SECONDS);
    const list = await as.bob.tool(TENANT, bobsProcess, "manual_list", {});
    const read = await as.bob.tool(TENANT, bobsProcess, "manual_read", { path: "manuals/private/plan.md" });
    const preview = await as.bob.composition(TENANT, bobsProcess, "hello");

    // Assess
    expect(own.status).toBe(201);
    expect(errorOf(diary)?.code).toBe("SKILL_NOT_FOUND");
    expect(list.status).toBe(200);
    expect((list.json.result as { documents: { path: string }[] }).documents.map((d) => d.path)).toEqual(["manuals/private/shared.md"]);
    expect(read.status).toBe(404);
    for (const [label, response] of [
      ["diary", diary],
      ["list", list],
      ["read", read],
      ["preview", preview],
    ] as const)
      expectNoSecret(label, response);
  });

  it("lists a session's processes per user: bob's session of the same id holds only his", async () => {
    // Act
    const alices = await as.alice.send("GET", `/brain/${TENANT}/sessions/diary-session/processes`);
    const admins = await as.admin.send("GET", `/brain/${TENANT}/sessions/diary-session/processes`);

    // Assess
    expect(alices.status).toBe(200);
    expect((alices.json as { processes: { processId: string }[] }).processes.map((p) => p.processId)).toEqual([processId]);
    expect(admins.json).toEqual({ processes: [] });
  });
});

describe("nobody but the owner receives _user_ content (WebSocket)", () => {
  const sockets: WsTestClient[] = [];
  const open = async (who: Who): Promise<WsTestClient> => {
    const socket = await connectWebSocket(stack.wsUrl, tokens[who]);
    sockets.push(socket);
    return socket;
  };
  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.close().catch(() => undefined)));
  });

  it.each(OTHERS)("refuses %s process-subscribe and process-skill with FORBIDDEN error frames", async (who) => {
    // Prepare
    const socket = await open(who);

    // Act
    socket.send({ type: "process-subscribe", processId, requestId: "sub" });
    const subscribe = await socket.nextJson<Record<string, unknown>>();
    socket.send({ type: "process-skill", processId, command: "CLEAR_ALL", requestId: `ws-${who}` });
    const steer = await socket.nextJson<Record<string, unknown>>();

    // Assess
    expect(subscribe).toMatchObject({ type: "error", error: { code: "FORBIDDEN" }, requestId: "sub" });
    expect(steer).toMatchObject({ type: "error", error: { code: "FORBIDDEN" } });
    expect(JSON.stringify([subscribe, steer])).not.toContain(SECRET);
  });

  it("sends the FOOT call only to alice's socket, refuses a forged answer from bob's, and returns alice's answer", async () => {
    // Prepare
    const alice = await open("alice");
    const bob = await open("bob");
    alice.send({ type: "process-subscribe", processId });
    expect(await alice.nextJson()).toMatchObject({ type: "process-subscribed" });
    bob.send({ type: "process-subscribe", processId });
    expect(await bob.nextJson()).toMatchObject({ type: "error", error: { code: "FORBIDDEN" } });

    // Act
    const call = as.alice.tool(TENANT, processId, "skill_diary__local", { hint: "x" });
    const execute = await alice.nextJson<{ type: string; invocationId: string; source: string }>(10_000);
    bob.send({ type: "process-skill-script-result", invocationId: execute.invocationId, result: "forged by bob" });
    const refusal = await bob.nextJson<Record<string, unknown>>();
    alice.send({ type: "process-skill-script-result", invocationId: execute.invocationId, result: "genuine" });
    const result = await call;

    // Assess
    expect(execute).toMatchObject({ type: "process-skill-script-execute", source: `'${SECRET} foot'` });
    expect(refusal).toMatchObject({ type: "error", error: { code: "INVALID_REQUEST" } });
    expect(JSON.stringify(refusal)).not.toContain(SECRET);
    expect(result.json.result).toBe("genuine");
  });

  it("answers 'foot routing not available' when only other users' sockets are connected", async () => {
    // Prepare: a fresh process of alice that no socket of hers subscribed to
    const spawned = await as.alice.spawn(TENANT, `foot-${randomUUID().slice(0, 8)}`, { recipe: "default", projectId: P1 });
    const fresh = spawned.json.processId as string;
    await as.alice.steer(TENANT, fresh, { command: "ACTIVATE", skillName: "diary" }, LANE_WAIT_SECONDS);
    const bob = await open("bob");
    bob.send({ type: "process-subscribe", processId: fresh });
    await bob.nextJson();

    // Act
    const result = await as.alice.tool(TENANT, fresh, "skill_diary__local", {});

    // Assess
    expect(result.json.result).toBe(FOOT_NOT_AVAILABLE);
    await expect(bob.nextFrame(500)).rejects.toThrow();
  });
});
