import { randomUUID } from "node:crypto";
import { DeleteMessageCommand, DeleteQueueCommand, ReceiveMessageCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import type { Message, SQSClient } from "@aws-sdk/client-sqs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLaneQueues } from "../../infra/local/sqs-lane-queues.js";
import type { LaneQueues } from "../../infra/local/sqs-lane-queues.js";
import { testSqsClient } from "../support/aws-clients.js";

/**
 * Long polls of the emulated FIFO lane queue behave as on SQS (patches/fauxqs+1.9.2.patch): a
 * receive answers when it can have a message or when its wait time is up. fauxqs woke every
 * waiting receive on any send and let the ones that found nothing answer empty at once, so each
 * turn cost the local poller's idle loops an empty round trip apiece.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("SQS FIFO long polls (emulator)", () => {
  let sqs: SQSClient;
  let queues: LaneQueues;

  beforeEach(async () => {
    sqs = testSqsClient();
    queues = await createLaneQueues(sqs, `long-poll-${randomUUID().slice(0, 8)}`);
  });

  afterEach(async () => {
    await sqs.send(new DeleteQueueCommand({ QueueUrl: queues.queueUrl }));
    await sqs.send(new DeleteQueueCommand({ QueueUrl: queues.deadLetterQueueUrl }));
    sqs.destroy();
  });

  const send = (group: string, body: string) =>
    sqs.send(
      new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: body, MessageGroupId: group, MessageDeduplicationId: randomUUID() }),
    );

  /** A long poll, and when it answered (ms after `since`) with what. */
  const receive = (waitTimeSeconds: number, since: number) =>
    sqs
      .send(new ReceiveMessageCommand({ QueueUrl: queues.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: waitTimeSeconds }))
      .then((out) => ({ messages: out.Messages ?? [], afterMs: performance.now() - since }));

  it("keeps waiting when a send wakes it for a group that is in flight, and answers when the group is freed", async () => {
    // Prepare: the group's first message is in flight
    await send("p1", "first");
    const [first] = (await receive(0, performance.now())).messages as [Message];
    expect(first.Body).toBe("first");
    const since = performance.now();
    const polling = receive(2, since);

    // Act: the group's next message arrives while the group is locked, then the first is deleted
    await send("p1", "second");
    await sleep(150);
    const settledEarly = await Promise.race([polling.then(() => true), sleep(0).then(() => false)]);
    await sqs.send(new DeleteMessageCommand({ QueueUrl: queues.queueUrl, ReceiptHandle: first.ReceiptHandle }));
    const answer = await polling;

    // Assess
    expect(settledEarly).toBe(false);
    expect(answer.messages.map((m) => m.Body)).toEqual(["second"]);
    expect(answer.afterMs).toBeLessThan(1000);
  });

  it("keeps waiting when another receive took the message it was woken for", async () => {
    // Prepare
    const since = performance.now();
    const polls = [receive(2, since), receive(2, since)];
    await sleep(100);

    // Act
    await send("p1", "one");
    await sleep(150);
    await send("p2", "two");
    const answers = await Promise.all(polls);

    // Assess: each poll got one message; none answered empty
    expect(answers.map((a) => a.messages.length)).toEqual([1, 1]);
    expect(answers.flatMap((a) => a.messages.map((m) => m.Body)).sort()).toEqual(["one", "two"]);
  });

  it("answers empty when its wait time is up", async () => {
    // Act
    const answer = await receive(1, performance.now());

    // Assess
    expect(answer.messages).toEqual([]);
    expect(answer.afterMs).toBeGreaterThanOrEqual(950);
  });
});
