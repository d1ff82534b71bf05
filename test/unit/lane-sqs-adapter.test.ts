import { SendMessageCommand } from "@aws-sdk/client-sqs";
import type { SQSClient } from "@aws-sdk/client-sqs";
import type { SQSRecord } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { LaneConfigurationError, LaneMessageMalformed, LaneMessageTooLarge } from "../../shared/lanes/lane-errors.js";
import { laneDeduplicationId } from "../../shared/lanes/lane-identity.js";
import { decodeLaneMessage } from "../../shared/lanes/lane-message.js";
import { laneMessage } from "../support/lane-message-fixture.js";
import { SqsLane } from "../../shared/lanes/sqs-lane.js";
import { failedMessageIds, toSqsRecord } from "../../infra/local/sqs-lane-event.js";

const QUEUE_URL = "http://127.0.0.1:4566/000000000000/lane.fifo";

function fakeSqs(): { client: SQSClient; sent: unknown[] } {
  const sent: unknown[] = [];
  const client = {
    send: async (command: unknown) => {
      sent.push(command);
      return {};
    },
  } as unknown as SQSClient;
  return { client, sent };
}

describe("SqsLane", () => {
  it("sends one FIFO message in the process's group, de-duplicated per request", async () => {
    // Prepare
    const { client, sent } = fakeSqs();
    const lane = new SqsLane(client, QUEUE_URL);

    // Act
    await lane.enqueue(laneMessage());

    // Assess
    expect(sent).toHaveLength(1);
    const command = sent[0] as SendMessageCommand;
    expect(command).toBeInstanceOf(SendMessageCommand);
    expect(command.input.QueueUrl).toBe(QUEUE_URL);
    expect(command.input.MessageGroupId).toBe("acme#proc-1");
    expect(command.input.MessageDeduplicationId).toBe(laneDeduplicationId(laneMessage()));
    expect(decodeLaneMessage(command.input.MessageBody)).toEqual(laneMessage());
  });

  it("refuses an oversized message before calling SQS", async () => {
    // Prepare
    const { client, sent } = fakeSqs();
    const lane = new SqsLane(client, QUEUE_URL);

    // Act
    const enqueued = lane.enqueue(laneMessage({ payload: { message: "x".repeat(257 * 1024) } }));

    // Assess
    await expect(enqueued).rejects.toBeInstanceOf(LaneMessageTooLarge);
    expect(sent).toHaveLength(0);
  });

  it("refuses a message that the worker would reject as poison", async () => {
    // Prepare
    const { client, sent } = fakeSqs();
    const lane = new SqsLane(client, QUEUE_URL);

    // Act
    const enqueued = lane.enqueue(laneMessage({ tenant: "" }));

    // Assess
    await expect(enqueued).rejects.toBeInstanceOf(LaneMessageMalformed);
    expect(sent).toHaveLength(0);
  });

  it("insists on a FIFO queue", () => {
    // Prepare
    const { client } = fakeSqs();

    // Act
    const construct = () => new SqsLane(client, "http://127.0.0.1:4566/000000000000/lane");

    // Assess
    expect(construct).toThrow(LaneConfigurationError);
  });
});

describe("SQS poller event shape", () => {
  it("builds the record Lambda's event source mapping delivers", () => {
    // Prepare
    const arn = "arn:aws:sqs:eu-west-1:123456789012:lane.fifo";

    // Act
    const record = toSqsRecord(
      {
        MessageId: "m-1",
        ReceiptHandle: "rh-1",
        Body: "{}",
        MD5OfBody: "99914b932bd37a50b983c5e7c90ae93b",
        Attributes: {
          ApproximateReceiveCount: "2",
          SentTimestamp: "1700000000000",
          SenderId: "AIDA",
          ApproximateFirstReceiveTimestamp: "1700000000100",
          SequenceNumber: "1000",
          MessageGroupId: "acme#p1",
          MessageDeduplicationId: "d-1",
        },
        MessageAttributes: {
          trace: { DataType: "String", StringValue: "abc" },
          blob: { DataType: "Binary", BinaryValue: new Uint8Array([1, 2, 3]) },
        },
      },
      arn,
    );

    // Assess
    expect(record).toEqual({
      messageId: "m-1",
      receiptHandle: "rh-1",
      body: "{}",
      attributes: {
        ApproximateReceiveCount: "2",
        SentTimestamp: "1700000000000",
        SenderId: "AIDA",
        ApproximateFirstReceiveTimestamp: "1700000000100",
        SequenceNumber: "1000",
        MessageGroupId: "acme#p1",
        MessageDeduplicationId: "d-1",
      },
      messageAttributes: {
        trace: { dataType: "String", stringValue: "abc", stringListValues: [], binaryListValues: [] },
        blob: { dataType: "Binary", binaryValue: "AQID", stringListValues: [], binaryListValues: [] },
      },
      md5OfBody: "99914b932bd37a50b983c5e7c90ae93b",
      eventSource: "aws:sqs",
      eventSourceARN: arn,
      awsRegion: "eu-west-1",
    });
  });

  const records = [{ messageId: "a" }, { messageId: "b" }] as SQSRecord[];

  it.each([
    ["no response", undefined, []],
    ["an empty failure list", { batchItemFailures: [] }, []],
    ["one reported failure", { batchItemFailures: [{ itemIdentifier: "b" }] }, ["b"]],
    ["an identifier not in the batch", { batchItemFailures: [{ itemIdentifier: "zzz" }] }, ["a", "b"]],
    ["an empty identifier", { batchItemFailures: [{ itemIdentifier: "" }] }, ["a", "b"]],
  ])("reads %s the way Lambda does", (_label, response, expected) => {
    // Act
    const failed = failedMessageIds(response, records);

    // Assess
    expect([...failed].sort()).toEqual(expected);
  });
});
