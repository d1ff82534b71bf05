import { randomUUID } from "node:crypto";
import { DeleteQueueCommand, GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import type { SQSClient } from "@aws-sdk/client-sqs";
import type { SQSEvent } from "aws-lambda";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { laneDeduplicationId, laneGroupId } from "../../shared/lanes/lane-identity.js";
import type { LaneMessage } from "../../shared/lanes/lane-message.js";
import { createLaneWorkerHandler } from "../../shared/lanes/lane-worker.js";
import type { LaneApply } from "../../shared/lanes/lane-worker.js";
import { SqsLane } from "../../shared/lanes/sqs-lane.js";
import { SqsLanePoller } from "../../infra/local/sqs-lane-poller.js";
import type { SqsBatchHandler } from "../../infra/local/sqs-lane-poller.js";
import { createLaneQueues } from "../../infra/local/sqs-lane-queues.js";
import type { LaneQueues } from "../../infra/local/sqs-lane-queues.js";
import { testSqsClient } from "../support/aws-clients.js";

const TENANT = "acme";

function laneMessage(processId: string, label: string, requestId: string = randomUUID()): LaneMessage {
  return {
    requestId,
    processId,
    tenant: TENANT,
    user: { login: "alice" },
    kind: "skill.activate",
    payload: { label },
    enqueuedAt: new Date().toISOString(),
  };
}

const labelOf = (m: LaneMessage): string => (m.payload as { label: string }).label;
const silent = { debug: () => undefined, warn: () => undefined };

describe("SQS FIFO lane: order and de-duplication", () => {
  let sqs: SQSClient;
  let queues: LaneQueues;
  let lane: SqsLane;
  let poller: SqsLanePoller | undefined;
  let pollerErrors: unknown[];

  beforeEach(async () => {
    sqs = testSqsClient();
    queues = await createLaneQueues(sqs, `lane-order-${randomUUID().slice(0, 8)}`, { maxReceiveCount: 5, visibilityTimeout: 30 });
    lane = new SqsLane(sqs, queues.queueUrl);
    pollerErrors = [];
  });

  afterEach(async () => {
    await poller?.stop();
    poller = undefined;
    await sqs.send(new DeleteQueueCommand({ QueueUrl: queues.queueUrl }));
    await sqs.send(new DeleteQueueCommand({ QueueUrl: queues.deadLetterQueueUrl }));
    sqs.destroy();
  });

  function startPoller(handler: SqsBatchHandler, concurrency = 1): Promise<void> {
    poller = new SqsLanePoller({
      sqs,
      queueUrl: queues.queueUrl,
      handler,
      concurrency,
      logger: { warn: (_m, ...extra) => pollerErrors.push(extra), error: (_m, ...extra) => pollerErrors.push(extra) },
    });
    return poller.start();
  }

  const worker = (apply: LaneApply): SqsBatchHandler =>
    createLaneWorkerHandler(apply, { logger: { ...silent, error: (_m, ...extra) => pollerErrors.push(extra) } });

  it("applies each process's messages in enqueue order, never two of one process at once", async () => {
    // Prepare
    const processes = ["p-a", "p-b", "p-c"];
    const applied = new Map<string, string[]>(processes.map((p) => [p, []]));
    const running = new Set<string>();
    let overlaps = 0;
    await startPoller(
      worker(async (m) => {
        if (running.has(m.processId)) overlaps += 1;
        running.add(m.processId);
        await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 3)));
        applied.get(m.processId)?.push(labelOf(m));
        running.delete(m.processId);
      }),
      3,
    );

    // Act: the three producers interleave in time; each sends its own messages in order.
    await Promise.all(
      processes.map(async (p) => {
        for (let i = 1; i <= 30; i++) await lane.enqueue(laneMessage(p, `${p}:${i}`));
      }),
    );
    await poller?.idle();

    // Assess
    for (const p of processes) {
      expect(applied.get(p)).toEqual(Array.from({ length: 30 }, (_, i) => `${p}:${i + 1}`));
    }
    expect(overlaps).toBe(0);
    expect(pollerErrors).toEqual([]);
  });

  it("hands the worker Lambda-shaped FIFO records", async () => {
    // Prepare
    const events: SQSEvent[] = [];
    const apply = worker(async () => undefined);
    await startPoller(async (event, context) => {
      events.push(event);
      return apply(event, context);
    });
    const sent = laneMessage("p-shape", "one");

    // Act
    await lane.enqueue(sent);
    await poller?.idle();

    // Assess
    const record = events[0]?.Records[0];
    expect(record).toMatchObject({
      eventSource: "aws:sqs",
      eventSourceARN: queues.queueArn,
      awsRegion: queues.queueArn.split(":")[3],
      attributes: {
        ApproximateReceiveCount: "1",
        MessageGroupId: laneGroupId(TENANT, "p-shape"),
        MessageDeduplicationId: laneDeduplicationId(sent),
      },
    });
    expect(record?.attributes.SequenceNumber).toMatch(/^\d+$/);
    expect(record?.attributes.SentTimestamp).toMatch(/^\d+$/);
    expect(record?.messageId).toBeTruthy();
    expect(record?.receiptHandle).toBeTruthy();
    expect(JSON.parse(record?.body ?? "null")).toEqual(sent);
  });

  it("delivers a requestId enqueued twice on one process once, also after it was consumed", async () => {
    // Prepare
    const applied: string[] = [];
    await startPoller(worker(async (m) => void applied.push(`${m.processId}/${labelOf(m)}`)));
    const original = laneMessage("p-dup", "original", "client-request-1");

    // Act
    await lane.enqueue(original);
    await lane.enqueue({ ...original, payload: { label: "retry before delivery" } });
    await poller?.idle();
    await lane.enqueue({ ...original, payload: { label: "retry after delivery" } });
    await lane.enqueue(laneMessage("p-other", "same requestId, other process", "client-request-1"));
    await poller?.idle();

    // Assess
    expect(applied.sort()).toEqual(["p-dup/original", "p-other/same requestId, other process"]);
  });

  it("stop() waits for the batch in flight and settles it", async () => {
    // Prepare
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const applying = new Promise<void>((resolve) => (started = resolve));
    await startPoller(
      worker(async () => {
        started();
        await gate;
      }),
    );
    await lane.enqueue(laneMessage("p-stop", "slow"));
    await applying;

    // Act
    let stopped = false;
    const stopping = poller?.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stoppedWhileApplying = stopped;
    release();
    await stopping;

    // Assess
    expect(stoppedWhileApplying).toBe(false);
    const { Attributes: counts } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queues.queueUrl,
        AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
      }),
    );
    expect(counts).toMatchObject({ ApproximateNumberOfMessages: "0", ApproximateNumberOfMessagesNotVisible: "0" });
  });
});
