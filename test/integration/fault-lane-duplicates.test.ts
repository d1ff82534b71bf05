import { isDeepStrictEqual } from "node:util";
import { SendMessageCommand } from "@aws-sdk/client-sqs";
import type { SQSBatchResponse } from "aws-lambda";
import { describe, expect, it } from "vitest";
import type { LaneWorkerHandler } from "../../shared/lanes/lane-worker.js";
import type { LaneQueues } from "../../infra/local/sqs-lane-queues.js";
import type { SqsBatchHandler } from "../../infra/local/sqs-lane-poller.js";
import type { ActiveSkillRef } from "../../shared/processes/process.js";
import type { RequestRecord, RequestStore } from "../../shared/processes/request-store.js";
import type { Turn } from "../../shared/turns/turn.js";
import { laneOutcome, laneRigFixture } from "../support/fault-lane-rig.js";
import type { LaneRig, LaneRigOptions } from "../support/fault-lane-rig.js";
import { seededRandom } from "../support/fault-injection.js";
import { comparableProcess, comparableRecord, withoutTimestamps, workloadSteps } from "../support/fault-workload.js";

/**
 * Duplicates on the lane: SQS delivers at least once, so the same message reaches the worker
 * twice (a second invocation with the same batch, a copy sent again later, a redelivery after a
 * worker died between its side effect and the delete). Each case must leave every process
 * exactly as a serial replay of its messages, applied once, does: same state, same version,
 * same request results.
 */

const lanes = laneRigFixture("dup");
const rig = (options: Partial<LaneRigOptions> = {}): Promise<LaneRig> => lanes.start(options);

/** Runs the seeded mix on `processCount` processes (each one's requests in order, processes side by side). */
async function runMix(target: LaneRig, seed: number, processCount = 3, steps = 8) {
  const random = seededRandom(seed);
  const processes = await Promise.all(Array.from({ length: processCount }, () => target.spawn()));
  const plans = processes.map((p, i) => ({ process: p, steps: workloadSteps(random, `p${i}`, steps) }));
  await Promise.all(
    plans.map(async ({ process, steps: planned }) => {
      const turnIds = new Map<string, string>();
      for (const step of planned) await target.send(process.processId, step, turnIds);
    }),
  );
  await target.idle();
  return plans;
}

/**
 * Every request of every process is settled, and each process is where a serial replay puts it.
 * `reanswered`: requests that may have been answered from the stored state — their first result
 * was lost after the process write, or a concurrent delivery of the same message wrote first and
 * the loser's answer was stored first (first outcome wins).
 */
async function expectAppliedOnce(
  target: LaneRig,
  plans: Awaited<ReturnType<typeof runMix>>,
  reanswered: ReadonlySet<string> = new Set(),
): Promise<void> {
  for (const { process } of plans) {
    const outcome = await laneOutcome(target, process);
    for (const [requestId, record] of outcome.records) {
      expect(record?.status, `request ${requestId}`).toMatch(/^(DONE|FAILED)$/);
      const expected = outcome.replay.records.get(requestId)!;
      const exact = isDeepStrictEqual(comparableRecord(record!), comparableRecord(expected));
      if (reanswered.has(requestId) && expected.status === "DONE" && !exact) expectReanswered(record!, expected);
      else expect(comparableRecord(record!), `result of ${requestId}`).toEqual(comparableRecord(expected));
    }
    expect(comparableProcess(outcome.process)).toEqual(comparableProcess(outcome.replay.process));
  }
}

/**
 * A result rebuilt from the stored state (the processors' replay paths) has the state right —
 * the skills after the request, the same turn — but not what only the lost first answer knew:
 * which skills a completion cleared, and the pending messages a compose consumed. Those messages
 * are not repeated, so the caller never sees them (at-most-once over exactly-once; reported).
 */
function expectReanswered(record: RequestRecord, expected: RequestRecord): void {
  const result = record.result as { activeSkills: ActiveSkillRef[]; turnId?: string };
  const serial = expected.result as { activeSkills: ActiveSkillRef[]; turnId?: string };
  expect(record.status).toBe("DONE");
  expect(withoutTimestamps(result.activeSkills)).toEqual(withoutTimestamps(serial.activeSkills));
  if (serial.turnId === undefined) return;
  const turn = record.result as Turn;
  const composed = expected.result as Turn;
  expect(turn.turnId).toBe(composed.turnId);
  expect(turn.skillSection).toBe(composed.skillSection);
  expect(turn.warnings).toContain("This turn was composed by an earlier delivery; its consumed messages are not repeated");
  expect(turn.messages.map((m) => m.text)).toEqual(composed.messages.filter((m) => m.kind === "user").map((m) => m.text));
}

const mergeResponses = (...responses: SQSBatchResponse[]): SQSBatchResponse => ({
  batchItemFailures: [...new Map(responses.flatMap((r) => r.batchItemFailures).map((f) => [f.itemIdentifier, f])).values()],
});

describe("lane duplicates: every message applied once", () => {
  it("hands every batch to the worker twice, one invocation after the other", async () => {
    // Prepare
    let invocations = 0;
    const target = await rig({
      wrapHandler:
        (handler: LaneWorkerHandler): SqsBatchHandler =>
        async (event, context) => {
          invocations += 2;
          const first = await handler(event, context);
          return mergeResponses(first, await handler(event, context));
        },
    });

    // Act
    const plans = await runMix(target, 11);

    // Assess
    expect(invocations).toBeGreaterThanOrEqual(2 * plans.length);
    await expectAppliedOnce(target, plans);
  });

  it("hands every batch to two concurrent worker invocations", async () => {
    // Prepare
    const handedOver = new Map<string, number>();
    const target = await rig({
      wrapHandler:
        (handler: LaneWorkerHandler): SqsBatchHandler =>
        async (event, context) => {
          for (const r of event.Records) handedOver.set(r.messageId, (handedOver.get(r.messageId) ?? 0) + 2);
          return mergeResponses(...(await Promise.all([handler(event, context), handler(structuredClone(event), context)])));
        },
    });

    // Act
    const plans = await runMix(target, 12);

    // Assess: each request settled by one or both invocations (first outcome wins), applied once
    const total = plans.reduce((n, p) => n + p.steps.length, 0);
    expect(handedOver.size).toBe(total);
    expect([...handedOver.values()].every((n) => n >= 2)).toBe(true);
    await expectAppliedOnce(target, plans, new Set(plans.flatMap((p) => p.steps.map((s) => s.requestId))));
  });

  it("delivers a late copy of every message, sent again after the original was applied", async () => {
    // Prepare: a handler that, like an upstream retry beyond SQS's 5-minute de-duplication
    // window, sends each applied record once more under a new de-duplication id.
    const resent = new Set<string>();
    const target = await rig({
      wrapHandler:
        (handler: LaneWorkerHandler, queues: LaneQueues): SqsBatchHandler =>
        async (event, context) => {
          const response = await handler(event, context);
          const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
          for (const record of event.Records) {
            if (failed.has(record.messageId) || record.messageAttributes["fault.copy"] !== undefined) continue;
            await lanes.sqs.send(
              new SendMessageCommand({
                QueueUrl: queues.queueUrl,
                MessageBody: record.body,
                MessageGroupId: record.attributes.MessageGroupId,
                MessageDeduplicationId: `copy-${record.messageId}`,
                MessageAttributes: { "fault.copy": { DataType: "String", StringValue: "1" } },
              }),
            );
            resent.add(record.messageId);
          }
          return response;
        },
    });

    // Act
    const plans = await runMix(target, 13);

    // Assess
    const total = plans.reduce((n, p) => n + p.steps.length, 0);
    expect(resent.size).toBe(total);
    await expectAppliedOnce(target, plans);
  });

  it("redelivers a batch after the worker died between applying it and the delete", async () => {
    // Prepare: the first invocation of every batch applies it, then the worker dies (the
    // poller deletes nothing and the whole batch comes back).
    const crashed = new Set<string>();
    const target = await rig({
      wrapHandler:
        (handler: LaneWorkerHandler): SqsBatchHandler =>
        async (event, context) => {
          const response = await handler(event, context);
          const fresh = event.Records.filter((r) => !crashed.has(r.messageId));
          if (fresh.length > 0) {
            for (const r of fresh) crashed.add(r.messageId);
            throw new Error("worker crashed before the poller could delete the batch");
          }
          return response;
        },
    });

    // Act
    const plans = await runMix(target, 14);

    // Assess
    const total = plans.reduce((n, p) => n + p.steps.length, 0);
    expect(crashed.size).toBe(total);
    await expectAppliedOnce(target, plans);
  });

  it("redelivers a message whose process write happened but whose result was not stored", async () => {
    // Prepare: storing each request's outcome fails once, after the process write — the
    // redelivery must recognise the write (appliedRequests) and not apply it again.
    const failedOnce = new Set<string>();
    const target = await rig({
      wrapWorkerRequests: (store: RequestStore): RequestStore => ({
        putQueued: (...args) => store.putQueued(...args),
        get: (...args) => store.get(...args),
        waitFor: (...args) => store.waitFor(...args),
        complete: async (tenant, processId, requestId, outcome) => {
          if (!failedOnce.has(requestId)) {
            failedOnce.add(requestId);
            throw new Error("worker crashed before it stored the result");
          }
          return store.complete(tenant, processId, requestId, outcome);
        },
      }),
    });

    // Act
    const plans = await runMix(target, 15);

    // Assess
    const total = plans.reduce((n, p) => n + p.steps.length, 0);
    expect(failedOnce.size).toBe(total);
    await expectAppliedOnce(target, plans, failedOnce);
  });
});
