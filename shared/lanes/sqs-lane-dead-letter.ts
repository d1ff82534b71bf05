import { SendMessageCommand } from "@aws-sdk/client-sqs";
import type { SQSClient } from "@aws-sdk/client-sqs";
import type { SQSRecord } from "aws-lambda";
import { fifoQueueUrl } from "./fifo-queue-url.js";
import type { LanePoisonHandler } from "./lane-worker.js";

const REASON_MAX_CHARS = 1024;

/**
 * Parks a poison lane record in the lane's FIFO DLQ unchanged, so a redrive can replay it
 * exactly. The original MessageDeduplicationId makes a repeated park (after a failed delete)
 * land once; the reason and source travel as message attributes.
 */
export function createSqsLaneDeadLetter(sqs: SQSClient, deadLetterQueueUrl: string): LanePoisonHandler {
  fifoQueueUrl(deadLetterQueueUrl, "Lane DLQ");
  return async (record: SQSRecord, error: unknown): Promise<void> => {
    const reason = (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, REASON_MAX_CHARS) || "unknown";
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: deadLetterQueueUrl,
        MessageBody: record.body,
        MessageGroupId: record.attributes.MessageGroupId ?? "unknown-group",
        MessageDeduplicationId: record.attributes.MessageDeduplicationId ?? record.messageId,
        MessageAttributes: {
          "lane.poisonReason": { DataType: "String", StringValue: reason },
          "lane.sourceMessageId": { DataType: "String", StringValue: record.messageId },
          "lane.sourceQueueArn": { DataType: "String", StringValue: record.eventSourceARN },
        },
      }),
    );
  };
}
