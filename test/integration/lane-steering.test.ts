import { randomUUID } from "node:crypto";
import { DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DeleteQueueCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import type { SQSClient } from "@aws-sdk/client-sqs";
import type { SQSRecord } from "aws-lambda";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSkillsApp } from "../../shared/app/skills-app.js";
import type { SkillsApp } from "../../shared/app/skills-app.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { InMemoryLane } from "../../shared/lanes/in-memory-lane.js";
import { laneGroupIdOf } from "../../shared/lanes/lane-identity.js";
import { encodeLaneMessage } from "../../shared/lanes/lane-message.js";
import type { LaneMessage, LaneUser } from "../../shared/lanes/lane-message.js";
import { createLaneWorkerHandler } from "../../shared/lanes/lane-worker.js";
import type { LaneApply } from "../../shared/lanes/lane-worker.js";
import { SqsLane } from "../../shared/lanes/sqs-lane.js";
import { SqsLanePoller } from "../../infra/local/sqs-lane-poller.js";
import { createLaneQueues } from "../../infra/local/sqs-lane-queues.js";
import type { LaneQueues } from "../../infra/local/sqs-lane-queues.js";
import { DynamoDBProcessStore } from "../../shared/processes/dynamodb-process-store.js";
import { DynamoDBRequestStore } from "../../shared/processes/dynamodb-request-store.js";
import { createTableIfMissing } from "../../infra/local/dynamodb-table.js";
import { InMemoryProcessStore } from "../../shared/processes/in-memory-process-store.js";
import { InMemoryRequestStore } from "../../shared/processes/in-memory-request-store.js";
import type { Process } from "../../shared/processes/process.js";
import type { ProcessStore } from "../../shared/processes/process-store.js";
import type { RequestRecord } from "../../shared/processes/request-store.js";
import type { ActivateResult } from "../../shared/steering/steer-context.js";
import { getDefaultSandboxPool } from "../../shared/sandbox/sandbox-pool.js";
import { createTemplateRenderer } from "../../shared/templates/sandboxed-template-renderer.js";
import type { TemplateRenderer } from "../../shared/templates/template-renderer.js";
import type { Turn } from "../../shared/turns/turn.js";
import { testDynamoDbClient, testSqsClient } from "../support/aws-clients.js";
import { EmptyLayer, RECIPES } from "../support/steering-harness.js";
import { skillMd } from "../support/skill-fixtures.js";

const ALICE: LaneUser = { login: "alice" };
const PROJECT = "proj1";
const silent = { debug: () => undefined, warn: () => undefined, error: () => undefined };

let ddb: DynamoDBClient;
let sqs: SQSClient;
let tableName: string;
let renderer: TemplateRenderer;

beforeAll(async () => {
  ddb = testDynamoDbClient();
  sqs = testSqsClient();
  tableName = `skills-lane-steering-${randomUUID().slice(0, 8)}`;
  await createTableIfMissing(ddb, tableName);
  renderer = createTemplateRenderer();
});

afterAll(async () => {
  await ddb.send(new DeleteTableCommand({ TableName: tableName }));
  ddb.destroy();
  sqs.destroy();
  await getDefaultSandboxPool().close();
});

/** Skills and recipes live in an in-memory document store: this file is about DynamoDB + SQS. */
async function documentsFor(tenant: string): Promise<InMemoryDocumentStore> {
  const documents = new InMemoryDocumentStore();
  for (const [name, yaml] of Object.entries(RECIPES)) await documents.put(tenant, "_tenant", `_vance/recipes/${name}.yaml`, yaml);
  for (const name of ["s0", "s1", "s2", "s3", "s4"]) {
    await documents.put(
      tenant,
      "_tenant",
      `_vance/skills/${name}/SKILL.md`,
      // A plain action (no template syntax) never reaches the sandbox: the lane, not rendering, is under test here.
      skillMd({
        extra: `arguments: true\nactivate:\n  - status.set ${name} on\ndeactivate:\n  - status.set ${name} off\naction: '${name} starts.'`,
      }),
    );
  }
  await documents.put(
    tenant,
    "_tenant",
    "_vance/skills/review/SKILL.md",
    skillMd({
      extra:
        "arguments: true\nrun:\n  target: spawn\n  recipe: reader\naction: 'Review {% if args.text %}{{ args.text }}{% else %}everything{% endif %} now.'",
    }),
  );
  return documents;
}

interface Stack {
  tenant: string;
  app: SkillsApp;
  documents: InMemoryDocumentStore;
  queues: LaneQueues;
  lane: SqsLane;
  /** Settled requests in the order the lane settled them. */
  applied: { message: LaneMessage; record: RequestRecord }[];
  /** Every apply attempt, in order (a failed attempt appears and is retried later). */
  started: string[];
  handler: ReturnType<typeof createLaneWorkerHandler>;
  poller: SqsLanePoller;
}

const stacks: Stack[] = [];

afterEach(async () => {
  for (const stack of stacks.splice(0)) {
    await stack.poller.stop();
    await sqs.send(new DeleteQueueCommand({ QueueUrl: stack.queues.queueUrl }));
    await sqs.send(new DeleteQueueCommand({ QueueUrl: stack.queues.deadLetterQueueUrl }));
  }
});

async function startStack(
  options: { wrapProcesses?: (store: ProcessStore) => ProcessStore; retryDelaySeconds?: number } = {},
): Promise<Stack> {
  const tenant = `t${randomUUID().slice(0, 8)}`;
  const documents = await documentsFor(tenant);
  const queues = await createLaneQueues(sqs, `lane-steering-${randomUUID().slice(0, 8)}`, { maxReceiveCount: 10, visibilityTimeout: 30 });
  const lane = new SqsLane(sqs, queues.queueUrl);
  const store = new DynamoDBProcessStore(ddb, tableName);
  const applied: Stack["applied"] = [];
  const started: string[] = [];
  const app = createSkillsApp({
    documents,
    bundled: new EmptyLayer(),
    processes: options.wrapProcesses ? options.wrapProcesses(store) : store,
    requests: new DynamoDBRequestStore(ddb, tableName, { pollStartMs: 20, pollMaxMs: 100 }),
    lane,
    renderer,
    logger: silent,
    onApplied: (message, record) => applied.push({ message, record }),
  });
  const apply: LaneApply = async (message, delivery) => {
    started.push(message.requestId);
    await app.applyLaneMessage(message, delivery);
  };
  const handler = createLaneWorkerHandler(apply, { logger: silent });
  const poller = new SqsLanePoller({
    sqs,
    queueUrl: queues.queueUrl,
    handler,
    concurrency: 4,
    waitTimeSeconds: 0,
    retryDelaySeconds: options.retryDelaySeconds ?? 0,
    logger: silent,
  });
  await poller.start();
  const stack = { tenant, app, documents, queues, lane, applied, started, handler, poller };
  stacks.push(stack);
  return stack;
}

const spawnIn = (stack: Stack, sessionId: string, recipe = "open", name?: string): Promise<Process> =>
  stack.app.spawn(stack.tenant, ALICE, { sessionId, recipe, projectId: PROJECT, name });

/** Waits until the lane is drained (SQS counters only, no table polling), then reads the records. */
async function settled(stack: Stack, requests: readonly (readonly [processId: string, requestId: string])[]): Promise<RequestRecord[]> {
  await stack.poller.idle({ timeoutMs: 40_000, pollIntervalMs: 25 });
  return Promise.all(
    requests.map(async ([processId, id]) => {
      const record = await stack.app.getRequest(stack.tenant, processId, id);
      expect(record?.status, `request ${id}`).toMatch(/^(DONE|FAILED)$/);
      return record!;
    }),
  );
}

/** What a request result and a process state mean, without clocks and store counters. */
const normalizeSkills = (skills: readonly { name: string; oneShot: boolean; fromRecipe: boolean; args: string | null }[]) =>
  skills.map(({ name, oneShot, fromRecipe, args }) => ({ name, oneShot, fromRecipe, args }));
const normalizeProcess = (p: Process) => ({
  activeSkills: normalizeSkills(p.activeSkills),
  pending: p.pending.map(({ id, sender, kind, text }) => ({ id, sender, kind, text })),
  statusText: p.statusText,
  appliedRequests: p.appliedRequests,
  version: p.version,
});

/** A seeded generator, so a failing run can be repeated. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe("lane steering on DynamoDB + SQS FIFO", () => {
  it("ends 50 concurrent ACTIVATE/CLEAR requests on one process in the state the lane order implies", async () => {
    // Prepare
    const stack = await startStack();
    const process = await spawnIn(stack, `s-${randomUUID()}`);
    const random = seeded(20250101);
    const requests = Array.from({ length: 50 }, (_, i) => {
      const skillName = `s${Math.floor(random() * 5)}`;
      const roll = random();
      if (roll < 0.5) return { command: "ACTIVATE", skillName, args: `v${i}`, requestId: `r${i}` };
      if (roll < 0.65) return { command: "ACTIVATE", skillName, oneShot: true, args: `once${i}`, requestId: `r${i}` };
      if (roll < 0.95) return { command: "CLEAR", skillName, requestId: `r${i}` };
      return { command: "CLEAR_ALL", requestId: `r${i}` };
    });

    // Act
    await Promise.all(requests.map((r) => stack.app.steerSkill(stack.tenant, process.processId, ALICE, r)));
    const records = await settled(
      stack,
      requests.map((r) => [process.processId, r.requestId] as const),
    );

    // Assess — every request applied exactly once, in one order
    expect(records.every((r) => r.status === "DONE")).toBe(true);
    const order = stack.applied.filter((a) => a.message.processId === process.processId);
    expect(order.map((a) => a.message.requestId).sort()).toEqual(requests.map((r) => r.requestId).sort());
    const final = await stack.app.getProcess(stack.tenant, process.processId);

    // Assess — a serial replay of that order on in-memory stores reaches the same results and the
    // same state, version included (one write per applied change: no update lost or doubled)
    const replay = await serialReplay(
      stack,
      process,
      order.map((a) => a.message),
    );
    order.forEach((a, i) => {
      expect(normalizeSkills((a.record.result as ActivateResult).activeSkills), `result of ${a.message.requestId}`).toEqual(
        normalizeSkills((replay.records[i]!.result as ActivateResult).activeSkills),
      );
    });
    expect(normalizeProcess(final)).toEqual(normalizeProcess(replay.process));
  });

  it("applies a message delivered twice by SQS once", async () => {
    // Prepare
    const stack = await startStack();
    const process = await spawnIn(stack, `s-${randomUUID()}`);
    const message: LaneMessage = {
      requestId: "dup-1",
      processId: process.processId,
      tenant: stack.tenant,
      user: ALICE,
      kind: "skill.activate",
      payload: { skillName: "s1", args: "twice" },
      enqueuedAt: new Date().toISOString(),
    };
    await stack.app.requests.putQueued(stack.tenant, process.processId, message.requestId, message.kind);

    // Act — the same request under two de-duplication ids: SQS delivers both
    for (const dedup of ["first", "second"]) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: stack.queues.queueUrl,
          MessageBody: encodeLaneMessage(message),
          MessageGroupId: laneGroupIdOf(message),
          MessageDeduplicationId: dedup,
        }),
      );
    }
    await settled(stack, [[message.processId, message.requestId]]);
    await stack.poller.idle({ timeoutMs: 20_000 });

    // Assess
    const after = await stack.app.getProcess(stack.tenant, process.processId);
    expect(stack.started.filter((id) => id === "dup-1")).toHaveLength(2);
    expect(after.pending.map((m) => m.text)).toEqual(["s1 starts."]);
    expect(after.version).toBe(process.version + 1);
  });

  it("applies one record handed to two concurrent worker invocations once (conditional write)", async () => {
    // Prepare
    const stack = await startStack();
    await stack.poller.stop();
    const process = await spawnIn(stack, `s-${randomUUID()}`);
    const message: LaneMessage = {
      requestId: "race-1",
      processId: process.processId,
      tenant: stack.tenant,
      user: ALICE,
      kind: "skill.activate",
      payload: { skillName: "s2", args: "raced" },
      enqueuedAt: new Date().toISOString(),
    };
    await stack.app.requests.putQueued(stack.tenant, process.processId, message.requestId, message.kind);
    const record = sqsRecord(message, stack.queues.queueArn);

    // Act
    const responses = await Promise.all([
      stack.handler({ Records: [record] }),
      stack.handler({ Records: [{ ...record, messageId: "m-2" }] }),
    ]);

    // Assess
    expect(responses.map((r) => r.batchItemFailures)).toEqual([[], []]);
    const after = await stack.app.getProcess(stack.tenant, process.processId);
    expect(after.pending.map((m) => m.text)).toEqual(["s2 starts."]);
    expect(after.activeSkills.map((s) => s.name)).toEqual(["s2"]);
    expect(after.version).toBe(process.version + 1);
    expect(await stack.app.getRequest(stack.tenant, process.processId, "race-1")).toMatchObject({
      status: "DONE",
      result: { turnScheduled: true },
    });
  });

  it("holds back the rest of a failing message's group while other processes proceed", async () => {
    // Prepare
    let failuresLeft = 2;
    let blockedId = "";
    const stack = await startStack({
      retryDelaySeconds: 1,
      wrapProcesses: (store) => ({
        create: (p) => store.create(p),
        listSession: (...args) => store.listSession(...args),
        get: (tenant, id) => store.get(tenant, id),
        update: (tenant, id, mutate) => {
          if (id === blockedId && failuresLeft > 0) {
            failuresLeft -= 1;
            return Promise.reject(new Error("ProvisionedThroughputExceededException"));
          }
          return store.update(tenant, id, mutate);
        },
      }),
    });
    const blocked = await spawnIn(stack, `s-${randomUUID()}`);
    const free = await spawnIn(stack, `s-${randomUUID()}`);
    blockedId = blocked.processId;

    // Act
    for (const [i, skillName] of ["s0", "s1", "s2"].entries()) {
      await stack.app.steerSkill(stack.tenant, blocked.processId, ALICE, { command: "ACTIVATE", skillName, requestId: `a${i}` });
    }
    for (const [i, skillName] of ["s3", "s4"].entries()) {
      await stack.app.steerSkill(stack.tenant, free.processId, ALICE, { command: "ACTIVATE", skillName, requestId: `b${i}` });
    }
    await settled(stack, [
      ...["a0", "a1", "a2"].map((id) => [blocked.processId, id] as const),
      ...["b0", "b1"].map((id) => [free.processId, id] as const),
    ]);

    // Assess
    const lastA0 = stack.started.lastIndexOf("a0");
    expect(stack.started.filter((id) => id === "a0").length).toBeGreaterThanOrEqual(3);
    expect(stack.started.indexOf("a1")).toBeGreaterThan(lastA0);
    expect(stack.started.indexOf("a2")).toBeGreaterThan(stack.started.lastIndexOf("a1"));
    expect(stack.started.lastIndexOf("b1")).toBeLessThan(lastA0);
    expect((await stack.app.getProcess(stack.tenant, blocked.processId)).activeSkills.map((s) => s.name)).toEqual(["s0", "s1", "s2"]);
    expect((await stack.app.getProcess(stack.tenant, free.processId)).activeSkills.map((s) => s.name)).toEqual(["s3", "s4"]);
  });

  it("names concurrently spawned workers uniquely around a taken name, and activates the skill on each", async () => {
    // Prepare
    const stack = await startStack();
    const sessionId = `s-${randomUUID()}`;
    await spawnIn(stack, sessionId, "plain", "review-1");
    const parents = [await spawnIn(stack, sessionId), await spawnIn(stack, sessionId)];

    // Act
    const accepted = await Promise.all(
      parents.map((p, i) =>
        stack.app.steerSkill(stack.tenant, p.processId, ALICE, { command: "ACTIVATE", skillName: "review", args: `part ${i}` }),
      ),
    );
    const records = await settled(
      stack,
      accepted.map((a, i) => [parents[i]!.processId, a.requestId] as const),
    );
    const spawned = records.map((r) => (r.result as ActivateResult).spawned!);
    await settled(
      stack,
      accepted.map((a, i) => [spawned[i]!.processId, `${a.requestId}#spawn`] as const),
    );

    // Assess
    expect(spawned.map((s) => s.name).sort()).toEqual(["review-2", "review-3"]);
    for (const [i, child] of spawned.entries()) {
      const worker = await stack.app.getProcess(stack.tenant, child.processId);
      expect(worker).toMatchObject({ sessionId, recipe: "reader", parentProcessId: parents[i]!.processId, name: child.name });
      expect(worker.activeSkills.map((s) => [s.name, s.args])).toEqual([["review", `part ${i}`]]);
      expect(worker.pending.map((m) => m.text)).toEqual([`Review part ${i} now.`]);
    }
  });

  it("composes and completes a worker's final turn through the lane and reports to the parent", async () => {
    // Prepare
    const stack = await startStack();
    const parent = await spawnIn(stack, `s-${randomUUID()}`);
    const { requestId } = await stack.app.steerSkill(stack.tenant, parent.processId, ALICE, { command: "ACTIVATE", skillName: "review" });
    const [activation] = await settled(stack, [[parent.processId, requestId]]);
    const child = (activation!.result as ActivateResult).spawned!;
    await settled(stack, [[child.processId, `${requestId}#spawn`]]);

    // Act
    const compose = await stack.app.composeTurn(stack.tenant, child.processId, ALICE, { message: "go" });
    const [composed] = await settled(stack, [[child.processId, compose.requestId]]);
    const complete = await stack.app.completeTurn(stack.tenant, child.processId, ALICE, compose.turnId, {
      output: "No findings.",
      final: true,
    });
    await settled(stack, [
      [child.processId, complete.requestId],
      [parent.processId, `${complete.requestId}#report`],
    ]);

    // Assess
    const turn = composed!.result as Turn;
    expect(turn.messages.map((m) => m.text)).toEqual(["Review everything now.", "go"]);
    expect(turn.tools).toContain("shell_exec");
    expect(await stack.app.getProcess(stack.tenant, child.processId)).toMatchObject({
      status: "DONE",
      lastOutput: "No findings.",
      pending: [],
    });
    const after = await stack.app.getProcess(stack.tenant, parent.processId);
    expect(after.pending).toEqual([expect.objectContaining({ sender: "_process", kind: "report", childProcessId: child.processId })]);
  });
});

/** Applies `messages` one by one, in order, to a fresh copy of `initial` on in-memory stores. */
async function serialReplay(
  stack: Stack,
  initial: Process,
  messages: readonly LaneMessage[],
): Promise<{ process: Process; records: RequestRecord[] }> {
  const processes = new InMemoryProcessStore();
  const requests = new InMemoryRequestStore();
  const app = createSkillsApp({
    documents: stack.documents,
    bundled: new EmptyLayer(),
    processes,
    requests,
    lane: new InMemoryLane(),
    renderer,
    logger: silent,
  });
  await processes.create({ ...initial });
  const records: RequestRecord[] = [];
  for (const message of messages) {
    await requests.putQueued(message.tenant, message.processId, message.requestId, message.kind);
    await app.applyLaneMessage(message, { messageId: message.requestId, groupId: undefined, receiveCount: 1 });
    records.push((await requests.get(message.tenant, message.processId, message.requestId))!);
  }
  return { process: (await processes.get(initial.tenant, initial.processId))!, records };
}

function sqsRecord(message: LaneMessage, queueArn: string): SQSRecord {
  const now = String(Date.now());
  return {
    messageId: "m-1",
    receiptHandle: "rh",
    body: encodeLaneMessage(message),
    attributes: {
      ApproximateReceiveCount: "1",
      SentTimestamp: now,
      SenderId: "test",
      ApproximateFirstReceiveTimestamp: now,
      MessageGroupId: laneGroupIdOf(message),
      MessageDeduplicationId: message.requestId,
      SequenceNumber: "1",
    },
    messageAttributes: {},
    md5OfBody: "",
    eventSource: "aws:sqs",
    eventSourceARN: queueArn,
    awsRegion: "us-east-1",
  };
}
