import { randomUUID } from "node:crypto";
import { DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { SQSClient } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SkillsError } from "../../shared/errors.js";
import { errorResponse } from "../../shared/http/error-response.js";
import { statusForCode } from "../../shared/http/error-table.js";
import { createTableIfMissing } from "../../infra/local/dynamodb-table.js";
import type { Process } from "../../shared/processes/process.js";
import type { Turn } from "../../shared/turns/turn.js";
import { testDynamoDbClient, testSqsClient } from "../support/aws-clients.js";
import { FaultInjector, isConditionalWrite, isVersionConditionalWrite, seededRandom } from "../support/fault-injection.js";
import { laneOutcome, startLaneRig } from "../support/fault-lane-rig.js";
import type { LaneRig } from "../support/fault-lane-rig.js";
import { comparableProcess, comparableRecord, workloadSteps } from "../support/fault-workload.js";
import type { WorkloadStep } from "../support/fault-workload.js";

/**
 * DynamoDB under fire: throttling, writes that lose their conditional race, and writes that
 * take effect but whose answer is lost (the SDK's retry then hits its own condition), injected
 * at random (seeded) into the lane worker's and the steering functions' clients. Every request
 * must end DONE or FAILED with a typed error (or be refused up front with a retryable 503 and
 * leave no trace), and no process may hold a partial or doubled change: each equals a serial
 * replay of the requests the lane reports as applied, version included.
 */

const SEED = 20250601;
const PRODUCER_TRIES = 4;
const MAX_RECEIVES = 6;

let ddb: DynamoDBClient;
let sqs: SQSClient;
let tableName: string;

beforeAll(async () => {
  ddb = testDynamoDbClient();
  sqs = testSqsClient();
  tableName = `skills-fault-ddb-${randomUUID().slice(0, 8)}`;
  await createTableIfMissing(ddb, tableName);
});

afterAll(async () => {
  await ddb.send(new DeleteTableCommand({ TableName: tableName }));
  ddb.destroy();
  sqs.destroy();
});

/** A caller's view of one request: how its producer calls went and what it finally saw. */
interface Sent {
  step: WorkloadStep;
  /** Producer errors, one per failed try (each as the HTTP surface would answer it). */
  refusals: { status: number; code: string }[];
  accepted: boolean;
}

/** Sends like a client that retries a 503 with the same requestId (safe: applied at most once). */
async function sendWithRetries(target: LaneRig, process: Process, step: WorkloadStep, turnIds: Map<string, string>): Promise<Sent> {
  const sent: Sent = { step, refusals: [], accepted: false };
  for (let attempt = 1; attempt <= PRODUCER_TRIES; attempt++) {
    try {
      await target.send(process.processId, step, turnIds);
      sent.accepted = true;
      return sent;
    } catch (error) {
      const { statusCode, body } = errorResponse(error);
      sent.refusals.push({ status: statusCode, code: body.error.code });
      if (statusCode !== 503) return sent;
    }
  }
  return sent;
}

describe("DynamoDB throttling and conditional conflicts (seeded)", () => {
  it("settles every request or refuses it cleanly, and leaves no process half-written or changed twice", async () => {
    // Prepare
    const workerFaults = new FaultInjector(SEED, [
      { kind: "throttle", rate: 0.05 },
      { kind: "conflict", rate: 0.2, when: isVersionConditionalWrite },
      { kind: "lostResponse", rate: 0.1, when: isConditionalWrite },
    ]);
    const producerFaults = new FaultInjector(SEED + 1, [
      { kind: "throttle", rate: 0.08 },
      { kind: "lostResponse", rate: 0.1, when: isConditionalWrite },
    ]);
    const producerDb = producerFaults.instrument(testDynamoDbClient());
    const workerDb = workerFaults.instrument(testDynamoDbClient());
    const target = await startLaneRig({
      sqs,
      tableName,
      producerDynamoDb: producerDb,
      workerDynamoDb: workerDb,
      maxReceiveCount: MAX_RECEIVES,
    });
    producerFaults.enabled = false;
    const processes = await Promise.all(Array.from({ length: 4 }, () => target.spawn()));
    for (const faults of [producerFaults, workerFaults]) {
      faults.alias(target.tenant, "T");
      processes.forEach((p, i) => faults.alias(p.processId, `P${i}`));
    }
    producerFaults.enabled = true;
    const random = seededRandom(SEED);
    const plans = processes.map((process, i) => ({ process, steps: workloadSteps(random, `p${i}`, 12) }));

    // Act
    const sent = await Promise.all(
      plans.map(async ({ process, steps }) => {
        const turnIds = new Map<string, string>();
        const results: Sent[] = [];
        for (const step of steps) results.push(await sendWithRetries(target, process, step, turnIds));
        return results;
      }),
    );
    await target.idle(60_000);
    producerFaults.enabled = false;
    workerFaults.enabled = false;

    // Assess: the run really was under fire, on both sides and of every kind
    expect(workerFaults.count("throttle")).toBeGreaterThan(0);
    expect(workerFaults.count("conflict")).toBeGreaterThan(0);
    expect(workerFaults.count("lostResponse")).toBeGreaterThan(0);
    expect(producerFaults.count()).toBeGreaterThan(0);

    for (const [i, { process }] of plans.entries()) {
      const outcome = await laneOutcome(target, process);
      const abandoned = new Set<string>();
      for (const { step, refusals, accepted } of sent[i]!) {
        const record =
          outcome.records.get(step.requestId) ?? (await target.app.getRequest(target.tenant, process.processId, step.requestId));
        // Refused up front: only with the retryable 503, and without a trace on the lane
        expect(
          refusals.every((r) => r.status === 503 && r.code === "SERVICE_UNAVAILABLE"),
          `refusals of ${step.requestId}`,
        ).toBe(true);
        if (!accepted) {
          expect(record, `record of refused ${step.requestId}`).toBeUndefined();
          continue;
        }
        // Accepted: settled, with a code the error table knows (never QUEUED forever)
        expect(record?.status, `status of ${step.requestId}`).toMatch(/^(DONE|FAILED)$/);
        if (record?.status === "FAILED") expect(statusForCode(record.error!.code), `code of ${step.requestId}`).toBeLessThan(600);
        if (record?.error?.code === "SERVICE_UNAVAILABLE") abandoned.add(step.requestId);
      }
      // No partial state: what the lane applied is exactly a serial replay of the requests it
      // reports as applied (given-up ones never touched the process), results included
      const applied = await laneOutcome(target, process, { exclude: abandoned });
      expect(comparableProcess(applied.process)).toEqual(comparableProcess(applied.replay.process));
      for (const id of abandoned) expect(applied.process.appliedRequests).not.toContain(id);
      for (const [requestId, record] of applied.replay.records) {
        expect(comparableRecord(applied.records.get(requestId)!), `result of ${requestId}`).toEqual(comparableRecord(record));
      }
    }
    await target.close();
  });

  it("answers requests whose process write took effect but lost its response with their full result", async () => {
    // Prepare: every process write takes effect, then reports a conflict (the SDK's retry of a
    // timed-out write finding its own write)
    const faults = new FaultInjector(SEED, [{ kind: "lostResponse", rate: 1, when: isVersionConditionalWrite }]);
    const target = await startLaneRig({ sqs, tableName, producerDynamoDb: ddb, workerDynamoDb: faults.instrument(testDynamoDbClient()) });
    const process = await target.spawn();
    const alice = { login: "alice" };
    const send = async (request: Promise<{ requestId: string }>) => {
      const { requestId } = await request;
      return target.app.waitForRequest(target.tenant, process.processId, requestId, 20_000);
    };

    // Act
    const activated = await send(target.app.steerSkill(target.tenant, process.processId, alice, { command: "ACTIVATE", skillName: "s0" }));
    const once = await send(
      target.app.steerSkill(target.tenant, process.processId, alice, { command: "ACTIVATE", skillName: "s1", oneShot: true }),
    );
    const { requestId: composeId, turnId } = await target.app.composeTurn(target.tenant, process.processId, alice, { message: "go" });
    const composed = await target.app.waitForRequest(target.tenant, process.processId, composeId, 20_000);
    const completed = await send(target.app.completeTurn(target.tenant, process.processId, alice, turnId, { output: "done" }));

    // Assess
    expect(faults.count("lostResponse")).toBe(4);
    expect(activated).toMatchObject({ status: "DONE", result: { turnScheduled: true } });
    expect(once).toMatchObject({ status: "DONE" });
    const turn = composed?.result as Turn;
    expect(turn.messages.map((m) => m.text)).toEqual(["s0 starts.", "s1 starts.", "go"]);
    expect(turn.warnings).toEqual([]);
    expect(completed).toMatchObject({ status: "DONE", result: { cleared: ["s1"] } });
    const after = await target.app.getProcess(target.tenant, process.processId);
    expect(after).toMatchObject({ version: process.version + 4, pending: [] });
    expect(after.activeSkills.map((s) => s.name)).toEqual(["s0"]);
    await target.close();
  });

  it("answers a process read that stays throttled with a typed, retryable error", async () => {
    // Prepare
    const faults = new FaultInjector(SEED, [{ kind: "throttle", rate: 1, operations: ["DynamoDB.GetItem"] }]);
    const target = await startLaneRig({ sqs, tableName, producerDynamoDb: faults.instrument(testDynamoDbClient()) });
    faults.enabled = false;
    const process = await target.spawn();
    faults.enabled = true;

    // Act
    const error = await target.app
      .steerSkill(target.tenant, process.processId, { login: "alice" }, { command: "CLEAR_ALL" })
      .catch((e: unknown) => e);

    // Assess
    expect(error).not.toBeInstanceOf(SkillsError);
    expect(errorResponse(error)).toEqual({
      statusCode: 503,
      body: { error: { code: "SERVICE_UNAVAILABLE", message: expect.stringMatching(/retry later/) } },
    });
    expect(target.enqueued.get(process.processId)).toBeUndefined();
    await target.close();
  });
});
