import { randomUUID } from "node:crypto";
import { DeleteQueueCommand, ReceiveMessageCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import type { Message, SQSClient } from "@aws-sdk/client-sqs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { laneGroupId } from "../../shared/lanes/lane-identity.js";
import type { LaneMessage } from "../../shared/lanes/lane-message.js";
import { createLaneWorkerHandler } from "../../shared/lanes/lane-worker.js";
import type { LaneApply, LanePoisonHandler } from "../../shared/lanes/lane-worker.js";
import { SqsLane } from "../../shared/lanes/sqs-lane.js";
import { createSqsLaneDeadLetter } from "../../shared/lanes/sqs-lane-dead-letter.js";
import { SqsLanePoller } from "../../infra/local/sqs-lane-poller.js";
import { createLaneQueues } from "../../infra/local/sqs-lane-queues.js";
import type { LaneQueues } from "../../infra/local/sqs-lane-queues.js";
import { testSqsClient } from "../support/aws-clients.js";

const TENANT = "acme";

function laneMessage(processId: string, label: string): LaneMessage {
  return {
    requestId: randomUUID(),
    processId,
    tenant: TENANT,
    user: { login: "alice" },
    kind: "turn.complete",
    payload: { label },
    enqueuedAt: new Date().toISOString(),
  };
}

const labelOf = (m: LaneMessage): string => (m.payload as { label: string }).label;
const silent = { debug: () => undefined, warn: () => undefined, error: () => undefined };

describe("SQS FIFO lane: failures, redelivery and the DLQ", () => {
  let sqs: SQSClient;
  let queues: LaneQueues | undefined;
  let poller: SqsLanePoller | undefined;

  beforeEach(() => {
    sqs = testSqsClient();
  });

  afterEach(async () => {
    await poller?.stop();
    poller = undefined;
    if (queues !== undefined) {
      await sqs.send(new DeleteQueueCommand({ QueueUrl: queues.queueUrl }));
      await sqs.send(new DeleteQueueCommand({ QueueUrl: queues.deadLetterQueueUrl }));
      queues = undefined;
    }
    sqs.destroy();
  });

  async function startLane(
    settings: { maxReceiveCount: number; retryDelaySeconds: number },
    apply: LaneApply,
    onPoison?: (queues: LaneQueues) => LanePoisonHandler,
  ): Promise<{ lane: SqsLane; queues: LaneQueues; poller: SqsLanePoller; poisonDeliveries: number[] }> {
    const poisonDeliveries: number[] = [];
    const logger = {
      ...silent,
      error: (message: string, ...extra: Record<string, unknown>[]) => {
        if (message === "Poison lane message") poisonDeliveries.push(Number(extra[0]?.receiveCount));
      },
    };
    const created = await createLaneQueues(sqs, `lane-fail-${randomUUID().slice(0, 8)}`, {
      maxReceiveCount: settings.maxReceiveCount,
      visibilityTimeout: 30,
    });
    queues = created;
    const handler = createLaneWorkerHandler(apply, { logger, ...(onPoison ? { onPoison: onPoison(created) } : {}) });
    poller = new SqsLanePoller({ sqs, queueUrl: created.queueUrl, handler, retryDelaySeconds: settings.retryDelaySeconds, logger: silent });
    await poller.start();
    return { lane: new SqsLane(sqs, created.queueUrl), queues: created, poller, poisonDeliveries };
  }

  async function drainQueue(queueUrl: string): Promise<Message[]> {
    const messages: Message[] = [];
    for (;;) {
      const { Messages: batch = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          MessageAttributeNames: ["All"],
          MessageSystemAttributeNames: ["All"],
        }),
      );
      if (batch.length === 0) return messages;
      messages.push(...batch);
    }
  }

  async function sendRaw(queueUrl: string, processId: string, body: string): Promise<void> {
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: body,
        MessageGroupId: laneGroupId(TENANT, processId),
        MessageDeduplicationId: randomUUID(),
      }),
    );
  }

  it("holds a process back at a failing message while other processes proceed, then redelivers it in order", async () => {
    // Prepare: A2 fails for as long as process B has not finished, so B must get past A's block.
    const attempts: string[] = [];
    const receiveCounts = new Map<string, number>();
    const { lane, poller } = await startLane({ maxReceiveCount: 20, retryDelaySeconds: 1 }, async (m, delivery) => {
      const label = labelOf(m);
      if (label === "A2" && !attempts.includes("B5")) {
        attempts.push("A2 failed");
        throw new Error("transient");
      }
      attempts.push(label);
      receiveCounts.set(label, delivery.receiveCount);
    });

    // Act
    for (let i = 1; i <= 5; i++) {
      await lane.enqueue(laneMessage("A", `A${i}`));
      await lane.enqueue(laneMessage("B", `B${i}`));
    }
    await poller.idle();

    // Assess
    const ofA = attempts.filter((a) => a.startsWith("A"));
    const failures = ofA.filter((a) => a === "A2 failed").length;
    expect(failures).toBeGreaterThanOrEqual(1);
    expect(ofA).toEqual(["A1", ...Array<string>(failures).fill("A2 failed"), "A2", "A3", "A4", "A5"]);
    expect(attempts.filter((a) => a.startsWith("B"))).toEqual(["B1", "B2", "B3", "B4", "B5"]);
    expect(attempts.indexOf("B5")).toBeLessThan(attempts.indexOf("A2"));
    expect(receiveCounts.get("A2")).toBe(failures + 1);
  });

  it("moves a poison message to the DLQ after maxReceiveCount, then the process goes on", async () => {
    // Prepare
    const applied: string[] = [];
    const { lane, queues, poller, poisonDeliveries } = await startLane({ maxReceiveCount: 2, retryDelaySeconds: 0 }, async (m) => {
      applied.push(labelOf(m));
    });

    // Act
    await lane.enqueue(laneMessage("A", "A1"));
    await sendRaw(queues.queueUrl, "A", "{not json");
    await lane.enqueue(laneMessage("A", "A2"));
    await lane.enqueue(laneMessage("B", "B1"));
    await poller.idle();

    // Assess
    expect(applied.filter((l) => l.startsWith("A"))).toEqual(["A1", "A2"]);
    expect(applied).toContain("B1");
    const dead = await drainQueue(queues.deadLetterQueueUrl);
    expect(dead.map((m) => m.Body)).toEqual(["{not json"]);
    expect(poisonDeliveries).toEqual([1, 2]);
  });

  it("parks a poison message in the DLQ at once when the worker is given onPoison", async () => {
    // Prepare
    const applied: string[] = [];
    const { lane, queues, poller, poisonDeliveries } = await startLane(
      { maxReceiveCount: 20, retryDelaySeconds: 30 },
      async (m) => void applied.push(labelOf(m)),
      (q) => createSqsLaneDeadLetter(sqs, q.deadLetterQueueUrl),
    );

    // Act
    await sendRaw(queues.queueUrl, "A", '{"kind":"skill.activate"}');
    await lane.enqueue(laneMessage("A", "A1"));
    await poller.idle();

    // Assess: with a 30 s retry delay, A1 can only have run because the poison left at once.
    expect(applied).toEqual(["A1"]);
    expect(poisonDeliveries).toEqual([1]);
    const dead = await drainQueue(queues.deadLetterQueueUrl);
    expect(dead).toHaveLength(1);
    expect(dead[0]?.Body).toBe('{"kind":"skill.activate"}');
    expect(dead[0]?.Attributes?.MessageGroupId).toBe(laneGroupId(TENANT, "A"));
    expect(dead[0]?.MessageAttributes?.["lane.poisonReason"]?.StringValue).toMatch(/^LaneMessageMalformed: /);
    expect(dead[0]?.MessageAttributes?.["lane.sourceQueueArn"]?.StringValue).toBe(queues.queueArn);
  });
});
