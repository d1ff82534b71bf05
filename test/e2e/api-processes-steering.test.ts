import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, LANE_WAIT_SECONDS, errorOf, FrameInbox, ofType, skillMd } from "./support/api-client.js";
import type { ActivateResult, PendingMessage, Process, ProcessSkillRequest, Turn } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";
import { waitFor } from "./support/wait-for.js";
import { connectWebSocket } from "./support/ws-client.js";

/**
 * API.md "Processes" and "Steering" against the real handlers and the real lane (SQS FIFO on
 * fauxqs, polled like an event source mapping), over HTTP and one WebSocket client.
 */

const TENANT = "acme";
const PROJECT = "work";
const PROCESS_FIELDS = [
  "processId",
  "sessionId",
  "name",
  "recipe",
  "projectId",
  "activeSkills",
  "allowedSkillsOverride",
  "locked",
  "pending",
  "guard",
  "parentProcessId",
  "children",
  "status",
  "version",
];
const TURN_FIELDS = [
  "turnId",
  "systemPrompt",
  "skillSection",
  "tools",
  "toolSpecs",
  "manualPaths",
  "messages",
  "activeSkills",
  "activation",
  "catalog",
  "skillTokens",
];
const ACTIVE_REF_FIELDS = ["name", "resolvedFromScope", "oneShot", "fromRecipe", "activatedAt", "args", "activatedBy"];
const FORD_PROMPT_START = "You are Ford";

let stack: LocalStack;
let api: ApiClient;
let token: string;

const skill = (name: string, frontmatter: string, body = "") =>
  api.putDocument(
    TENANT,
    PROJECT,
    `_vance/skills/${name}/SKILL.md`,
    skillMd(`title: ${name}\ndescription: The ${name} skill\nversion: 1.0.0\n${frontmatter}`, body),
  );

beforeAll(async () => {
  stack = await startLocalStack();
  token = await stack.token({ tenant: TENANT, login: "alice", projects: [PROJECT], roles: [`project-admin:${PROJECT}`] });
  api = new ApiClient(stack.httpUrl, token);
  const saved = await Promise.all([
    skill("kickoff", "tools: [kick_tool]\nmanualPaths: [docs/kick]\naction: Start the work now.", "Kick-off body."),
    skill("needs-arg", "arguments:\n  - name: target\n    required: true", "Target: {{ args.target }}"),
    skill("once", "tools: [once_tool]", "Only this turn."),
    skill(
      "reviewer",
      "arguments: true\nrun:\n  target: spawn\n  recipe: code-read\naction: |\n  Review {{ args.text }} now.",
      "Worker methodology: judge the code, not the chat.",
    ),
    api.putDocument(
      TENANT,
      PROJECT,
      "_vance/recipes/locked-ts.yaml",
      "engine: ford\npromptPrefix: Locked prefix.\ndefaultActiveSkills: [typescript-style]\nlocked: true\n",
    ),
    api.putDocument(TENANT, PROJECT, "docs/kick/intro.md", "# Kick-off manual\n"),
  ]);
  for (const response of saved) expect(response.status).toBe(200);
});

afterAll(async () => {
  await stack?.close();
});

const session = (): string => `s-${randomUUID().slice(0, 8)}`;

async function spawn(recipe: string, name?: string): Promise<Process> {
  const response = await api.spawn(TENANT, session(), { recipe, projectId: PROJECT, ...(name === undefined ? {} : { name }) });
  expect(response.status).toBe(201);
  return response.json;
}

async function steer(processId: string, request: ProcessSkillRequest): Promise<ActivateResult> {
  const response = await api.steer(TENANT, processId, request, LANE_WAIT_SECONDS);
  expect(response.status, response.text).toBe(200);
  return response.json.result as ActivateResult;
}

async function compose(processId: string, message?: string): Promise<Turn> {
  const response = await api.compose(TENANT, processId, message === undefined ? {} : { message }, LANE_WAIT_SECONDS);
  expect(response.status, response.text).toBe(200);
  return response.json.result as Turn;
}

const processOf = async (processId: string): Promise<Process> => (await api.process(TENANT, processId)).json;
const activeNames = (refs: readonly { name: string }[]): string[] => refs.map((s) => s.name);

describe("processes", () => {
  it("spawns with 201 and exactly the Process fields, applying the recipe's defaultActiveSkills and allowedSkills (spec §7)", async () => {
    // Prepare
    const sessionId = session();

    // Act
    const created = await api.spawn(TENANT, sessionId, { recipe: "analyze", projectId: PROJECT, name: "main" });
    const read = await api.process(TENANT, created.json.processId);

    // Assess
    expect(created.status).toBe(201);
    expect([...Object.keys(created.json)].sort()).toEqual([...PROCESS_FIELDS].sort());
    expect(created.json).toEqual({
      processId: expect.any(String),
      sessionId,
      name: "main",
      recipe: "analyze",
      projectId: PROJECT,
      activeSkills: [
        {
          name: "typescript-style",
          resolvedFromScope: "RESOURCE",
          oneShot: false,
          fromRecipe: true,
          activatedAt: expect.any(String),
          args: null,
          activatedBy: "recipe",
        },
      ],
      allowedSkillsOverride: ["code-review", "typescript-style", "code-guard"],
      locked: false,
      pending: [],
      guard: null,
      parentProcessId: null,
      children: [],
      status: "ACTIVE",
      version: expect.any(Number),
    });
    expect(read.status).toBe(200);
    expect(read.json).toEqual(created.json);
  });

  it("answers 409 NAME_TAKEN for a name already used in the session, but not in another session", async () => {
    // Prepare
    const sessionId = session();
    await api.spawn(TENANT, sessionId, { recipe: "default", projectId: PROJECT, name: "worker" });

    // Act
    const again = await api.spawn(TENANT, sessionId, { recipe: "analyze", projectId: PROJECT, name: "worker" });
    const elsewhere = await api.spawn(TENANT, session(), { recipe: "default", projectId: PROJECT, name: "worker" });

    // Assess
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ error: { code: "NAME_TAKEN", message: expect.any(String) } });
    expect(elsewhere.status).toBe(201);
  });

  it("answers 404 RECIPE_NOT_FOUND for an unknown recipe and 404 PROCESS_NOT_FOUND for an unknown process", async () => {
    // Act
    const recipe = await api.spawn(TENANT, session(), { recipe: "no-such-recipe", projectId: PROJECT });
    const missing = await api.process(TENANT, "no-such-process");

    // Assess
    expect(recipe.status).toBe(404);
    expect(recipe.json).toEqual({ error: { code: "RECIPE_NOT_FOUND", message: expect.any(String) } });
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ error: { code: "PROCESS_NOT_FOUND", message: expect.any(String) } });
  });
});

describe("steering", () => {
  it("queues an activation with 202 {requestId, status: QUEUED}; GET requests/{requestId} then reports it DONE", async () => {
    // Prepare
    const process = await spawn("default");

    // Act
    const queued = await api.steer(TENANT, process.processId, { command: "ACTIVATE", skillName: "code-review" });
    const requestId = queued.json.requestId;
    const done = await waitFor(
      async () => {
        const status = await api.requestStatus(TENANT, process.processId, requestId);
        return status.json.status === "DONE" && status;
      },
      15_000,
      "the request to be applied",
    );

    // Assess
    expect(queued.status).toBe(202);
    expect(queued.json).toEqual({ requestId: expect.any(String), status: "QUEUED" });
    expect(done.status).toBe(200);
    expect(done.json).toEqual({
      requestId,
      status: "DONE",
      result: { activeSkills: [expect.objectContaining({ name: "code-review" })], turnScheduled: false },
    });
  });

  it("answers 404 REQUEST_NOT_FOUND for an unknown requestId", async () => {
    // Prepare
    const process = await spawn("default");

    // Act
    const response = await api.requestStatus(TENANT, process.processId, "never-sent");

    // Assess
    expect(response.status).toBe(404);
    expect(response.json).toEqual({ error: { code: "REQUEST_NOT_FOUND", message: expect.any(String) } });
  });

  it("waits with Prefer: wait=N and answers 200 DONE with {activeSkills, turnScheduled}, the state right after the request", async () => {
    // Prepare
    const process = await spawn("analyze");

    // Act
    const response = await api.steer(
      TENANT,
      process.processId,
      { command: "ACTIVATE", skillName: "code-review", args: "src/" },
      LANE_WAIT_SECONDS,
    );
    const active = await api.active(TENANT, process.processId);

    // Assess
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      requestId: expect.any(String),
      status: "DONE",
      result: { activeSkills: expect.any(Array), turnScheduled: true },
    });
    const refs = (response.json.result as ActivateResult).activeSkills;
    expect(activeNames(refs)).toEqual(["typescript-style", "code-review"]);
    for (const ref of refs) expect([...Object.keys(ref)].sort()).toEqual([...ACTIVE_REF_FIELDS].sort());
    expect(refs[1]).toEqual({
      name: "code-review",
      resolvedFromScope: "RESOURCE",
      oneShot: false,
      fromRecipe: false,
      activatedAt: expect.any(String),
      args: null,
      activatedBy: "explicit",
    });
    expect(active.status).toBe(200);
    expect(active.json).toEqual({ activeSkills: refs });
  });

  it.each([
    {
      what: "an unknown skill",
      recipe: "default",
      request: { command: "ACTIVATE", skillName: "no-such-skill" },
      status: 404,
      code: "SKILL_NOT_FOUND",
    },
    {
      what: "a skill outside the recipe's allowedSkills",
      recipe: "analyze",
      request: { command: "ACTIVATE", skillName: "kickoff" },
      status: 403,
      code: "SKILL_NOT_ALLOWED",
      message: "Skill 'kickoff' is not allowed by recipe 'analyze'",
    },
    {
      what: "clearing a recipe skill of a locked recipe",
      recipe: "locked-ts",
      request: { command: "CLEAR", skillName: "typescript-style" },
      status: 409,
      code: "SKILL_LOCKED",
    },
    {
      what: "a required argument without a token",
      recipe: "default",
      request: { command: "ACTIVATE", skillName: "needs-arg" },
      status: 422,
      code: "SKILL_ARGUMENT_MISSING",
    },
  ] as const)("answers $status $code for $what, and changes nothing", async ({ recipe, request, status, code, ...rest }) => {
    // Prepare
    const process = await spawn(recipe);

    // Act
    const response = await api.steer(TENANT, process.processId, request, LANE_WAIT_SECONDS);
    const after = await processOf(process.processId);

    // Assess
    expect(response.status).toBe(status);
    expect(response.json).toEqual({ error: { code, message: "message" in rest ? rest.message : expect.any(String) } });
    expect(after.activeSkills).toEqual(process.activeSkills);
    expect(after.pending).toEqual([]);
  });

  it("CLEAR removes one skill and answers {activeSkills}", async () => {
    // Prepare
    const process = await spawn("default");
    await steer(process.processId, { command: "ACTIVATE", skillName: "code-review" });
    await steer(process.processId, { command: "ACTIVATE", skillName: "once" });

    // Act
    const response = await api.steer(TENANT, process.processId, { command: "CLEAR", skillName: "code-review" }, LANE_WAIT_SECONDS);

    // Assess
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      requestId: expect.any(String),
      status: "DONE",
      result: { activeSkills: [expect.objectContaining({ name: "once" })] },
    });
  });

  it("CLEAR_ALL on a locked recipe answers 200 and clears only the skills that did not come from the recipe", async () => {
    // Prepare
    const process = await spawn("locked-ts");
    await steer(process.processId, { command: "ACTIVATE", skillName: "code-review" });
    await steer(process.processId, { command: "ACTIVATE", skillName: "once", oneShot: true });

    // Act
    const response = await api.steer(TENANT, process.processId, { command: "CLEAR_ALL" }, LANE_WAIT_SECONDS);

    // Assess
    expect(process.locked).toBe(true);
    expect(response.status).toBe(200);
    const result = response.json.result as ActivateResult;
    expect(result.activeSkills).toEqual([expect.objectContaining({ name: "typescript-style", fromRecipe: true })]);
    expect((await processOf(process.processId)).activeSkills).toEqual(result.activeSkills);
  });

  it("applies the same requestId only once", async () => {
    // Prepare
    const process = await spawn("default");
    const request: ProcessSkillRequest = { command: "ACTIVATE", skillName: "kickoff", requestId: `dup-${randomUUID()}` };

    // Act
    const first = await api.steer(TENANT, process.processId, request, LANE_WAIT_SECONDS);
    const afterFirst = await processOf(process.processId);
    const second = await api.steer(TENANT, process.processId, request, LANE_WAIT_SECONDS);
    const queuedAgain = await api.steer(TENANT, process.processId, request);
    await stack.laneIdle();
    const afterAll = await processOf(process.processId);

    // Assess
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.json).toEqual(first.json);
    expect(queuedAgain.json).toEqual({ requestId: request.requestId, status: "DONE" });
    expect(afterAll.version).toBe(afterFirst.version);
    expect(afterAll.pending.filter((m) => m.sender === "_skill")).toHaveLength(1);
  });
});

describe("scheduled turns", () => {
  it("an action: skill queues a _skill message, pushes process-turn-scheduled, and the next turn consumes it exactly once", async () => {
    // Prepare
    const process = await spawn("default");
    const client = await connectWebSocket(stack.wsUrl, token);
    const inbox = new FrameInbox(client);
    try {
      inbox.send({ type: "process-subscribe", processId: process.processId });
      await inbox.next(ofType("process-subscribed", { processId: process.processId }));

      // Act
      const activation = await steer(process.processId, { command: "ACTIVATE", skillName: "kickoff" });
      const frame = await inbox.next<{ processId: string; reason: string; pending: PendingMessage[] }>(
        ofType("process-turn-scheduled", { processId: process.processId }),
      );
      const pendingBefore = (await processOf(process.processId)).pending;
      const turn = await compose(process.processId, "please go");
      const pendingAfter = (await processOf(process.processId)).pending;
      const nextTurn = await compose(process.processId, "and then?");

      // Assess
      expect(activation.turnScheduled).toBe(true);
      expect(frame).toMatchObject({
        processId: process.processId,
        reason: "action",
        pending: [{ sender: "_skill", text: "Start the work now." }],
      });
      expect(pendingBefore).toEqual([expect.objectContaining({ sender: "_skill", text: "Start the work now." })]);
      expect(turn.messages.map((m) => [m.sender, m.text])).toEqual([
        ["_skill", "Start the work now."],
        ["alice", "please go"],
      ]);
      expect(pendingAfter).toEqual([]);
      expect(nextTurn.messages.map((m) => [m.sender, m.text])).toEqual([["alice", "and then?"]]);
    } finally {
      await client.close();
    }
  });
});

describe("turns", () => {
  it("composes a Turn: engine + recipe prefix as one system message, the skill section as another, tools, toolSpecs, manualPaths, messages, activeSkills", async () => {
    // Prepare
    const process = await spawn("locked-ts");
    await steer(process.processId, { command: "ACTIVATE", skillName: "kickoff" });

    // Act
    const response = await api.compose(TENANT, process.processId, { message: "hello" }, LANE_WAIT_SECONDS);

    // Assess
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ requestId: expect.any(String), status: "DONE" });
    const turn = response.json.result as Turn;
    // `warnings` (skills left out of the turn) is the one field the service adds to API.md's Turn.
    expect(
      Object.keys(turn)
        .filter((key) => key !== "warnings")
        .sort(),
    ).toEqual([...TURN_FIELDS].sort());
    expect(turn.turnId).toEqual(expect.any(String));
    // [engine + prefix], [skill section], then the catalog of the skills the model may still activate.
    expect(turn.systemPrompt).toHaveLength(3);
    expect(turn.systemPrompt[2]?.content.startsWith("Available skills")).toBe(true);
    expect(turn.systemPrompt[0]?.role).toBe("system");
    expect(turn.systemPrompt[0]?.content.startsWith(FORD_PROMPT_START)).toBe(true);
    expect(turn.systemPrompt[0]?.content.endsWith("Locked prefix.")).toBe(true);
    expect(turn.systemPrompt[1]).toEqual({ role: "system", content: turn.skillSection });
    expect(turn.skillSection).toContain("--- Skill: typescript-style ---");
    expect(turn.skillSection).toContain("--- Skill: kickoff ---\nThe kickoff skill\n\nKick-off body.");
    expect(turn.skillSection.indexOf("typescript-style")).toBeLessThan(turn.skillSection.indexOf("kickoff"));
    expect(turn.tools).toEqual(expect.arrayContaining(["file_read", "manual_read", "kick_tool"]));
    for (const spec of turn.toolSpecs) expect(Object.keys(spec).sort()).toEqual(["description", "inputSchema", "name"]);
    expect(turn.toolSpecs.map((spec) => spec.name)).toContain("manual_read");
    expect(turn.manualPaths).toEqual(["docs/kick"]);
    expect(turn.messages.map((m) => [m.role, m.sender, m.text])).toEqual([
      ["user", "_skill", "Start the work now."],
      ["user", "alice", "hello"],
    ]);
    expect(activeNames(turn.activeSkills)).toEqual(["typescript-style", "kickoff"]);
  });

  it("complete auto-clears the turn's oneShot skills; final: true ends the process", async () => {
    // Prepare
    const process = await spawn("default");
    await steer(process.processId, { command: "ACTIVATE", skillName: "code-review" });
    await steer(process.processId, { command: "ACTIVATE", skillName: "once", oneShot: true });
    const first = await compose(process.processId, "first");

    // Act
    const completed = await api.complete(TENANT, process.processId, first.turnId, { output: "did the first" }, LANE_WAIT_SECONDS);
    const second = await compose(process.processId, "second");
    const finished = await api.complete(TENANT, process.processId, second.turnId, { output: "all done", final: true }, LANE_WAIT_SECONDS);
    const after = await processOf(process.processId);

    // Assess
    expect(activeNames(first.activeSkills)).toEqual(["code-review", "once"]);
    expect(first.tools).toContain("once_tool");
    expect(completed.status).toBe(200);
    expect(completed.json).toMatchObject({ status: "DONE", result: { activeSkills: [expect.objectContaining({ name: "code-review" })] } });
    expect(activeNames(second.activeSkills)).toEqual(["code-review"]);
    expect(second.tools).not.toContain("once_tool");
    expect(finished.status).toBe(200);
    expect(finished.json.result?.activeSkills).toEqual([]);
    expect(after.status).toBe("DONE");
  });

  it("previews the composition: the Turn itself, unwrapped, and nothing changes", async () => {
    // Prepare
    const process = await spawn("default");
    await steer(process.processId, { command: "ACTIVATE", skillName: "kickoff" });
    const before = await processOf(process.processId);

    // Act
    const preview = await api.composition(TENANT, process.processId, "please review the diff");
    const after = await processOf(process.processId);

    // Assess
    expect(preview.status).toBe(200);
    expect(
      Object.keys(preview.json)
        .filter((key) => key !== "warnings")
        .sort(),
    ).toEqual([...TURN_FIELDS].sort());
    expect(preview.json.messages.map((m) => [m.sender, m.text])).toEqual([
      ["_skill", "Start the work now."],
      ["alice", "please review the diff"],
    ]);
    // The trigger hook shows what this message would activate, without activating it.
    expect(activeNames(preview.json.activeSkills)).toEqual(["kickoff", "code-review"]);
    expect(after).toEqual(before);
  });

  it("invokes a tool the process has (manual_read below a skill's manualPaths) and answers 404 TOOL_NOT_FOUND otherwise", async () => {
    // Prepare
    const process = await spawn("default");
    await steer(process.processId, { command: "ACTIVATE", skillName: "kickoff" });

    // Act
    const read = await api.tool(TENANT, process.processId, "manual_read", { path: "docs/kick/intro.md" });
    const list = await api.tool(TENANT, process.processId, "manual_list", {});
    const unknown = await api.tool(TENANT, process.processId, "no_such_tool", {});
    const notNow = await api.tool(TENANT, process.processId, "skill_reference_doc", { skill: "kickoff", title: "x" });

    // Assess
    expect(read.status).toBe(200);
    expect(read.json).toEqual({ result: expect.objectContaining({ path: "docs/kick/intro.md", content: "# Kick-off manual\n" }) });
    expect(list.status).toBe(200);
    expect(list.json.result).toMatchObject({
      folders: ["docs/kick"],
      documents: [expect.objectContaining({ path: "docs/kick/intro.md" })],
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ error: { code: "TOOL_NOT_FOUND", message: expect.any(String) } });
    expect(notNow.status).toBe(404);
    expect(errorOf(notNow)?.code).toBe("TOOL_NOT_FOUND");
  });
});

describe("spawn skills (run.target: spawn)", () => {
  it("spawns <skill>-1 with the skill sticky and the rendered action as its first pending message; the caller keeps nothing", async () => {
    // Prepare
    const parent = await spawn("default");

    // Act
    const first = await api.steer(
      TENANT,
      parent.processId,
      { command: "ACTIVATE", skillName: "reviewer", args: "src/api" },
      LANE_WAIT_SECONDS,
    );
    const result = first.json.result as ActivateResult;
    const childId = result.spawned?.processId ?? "";
    const child = await waitFor(
      async () => {
        const found = await processOf(childId);
        return found.pending.length > 0 && found;
      },
      15_000,
      "the child's first message",
    );
    const second = await steer(parent.processId, { command: "ACTIVATE", skillName: "reviewer" });
    const parentAfter = await processOf(parent.processId);

    // Assess
    expect(first.status).toBe(200);
    expect(result).toEqual({ activeSkills: [], turnScheduled: false, spawned: { processId: expect.any(String), name: "reviewer-1" } });
    expect(child).toMatchObject({
      name: "reviewer-1",
      recipe: "code-read",
      projectId: PROJECT,
      sessionId: parent.sessionId,
      parentProcessId: parent.processId,
    });
    expect(child.activeSkills).toEqual([expect.objectContaining({ name: "reviewer", oneShot: false, fromRecipe: false, args: "src/api" })]);
    expect(child.pending[0]).toMatchObject({ sender: "_skill", text: "Review src/api now." });
    expect(second.spawned?.name).toBe("reviewer-2");
    expect(parentAfter.activeSkills).toEqual([]);
    expect(parentAfter.pending).toEqual([]);
    expect(parentAfter.children).toEqual([
      { processId: childId, name: "reviewer-1" },
      { processId: second.spawned?.processId, name: "reviewer-2" },
    ]);
  });
});
