import { randomUUID } from "node:crypto";
import type { Message, MessageAttributeValue } from "@aws-sdk/client-sqs";
import type { Context, SQSBatchResponse, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from "aws-lambda";

/** The shapes Lambda's SQS event source mapping produces, built from ReceiveMessage output. */

/**
 * Lambda's reading of a partial batch response: nothing reported means all succeeded; an
 * identifier that is empty or not in the batch makes the whole batch a failure.
 */
export function failedMessageIds(response: SQSBatchResponse | void | null, records: readonly SQSRecord[]): ReadonlySet<string> {
  const all = new Set(records.map((r) => r.messageId));
  const reported = response?.batchItemFailures ?? [];
  const failed = new Set<string>();
  for (const failure of reported) {
    const id = failure?.itemIdentifier;
    if (typeof id !== "string" || !all.has(id)) return all;
    failed.add(id);
  }
  return failed;
}

/** The record shape Lambda's SQS event source mapping delivers. */
export function toSqsRecord(message: Message, queueArn: string): SQSRecord {
  const a = message.Attributes ?? {};
  const attributes: SQSRecordAttributes = {
    ApproximateReceiveCount: a.ApproximateReceiveCount ?? "1",
    SentTimestamp: a.SentTimestamp ?? String(Date.now()),
    SenderId: a.SenderId ?? "",
    ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
  };
  for (const key of ["SequenceNumber", "MessageGroupId", "MessageDeduplicationId", "AWSTraceHeader", "DeadLetterQueueSourceArn"] as const) {
    const value = a[key];
    if (value !== undefined) attributes[key] = value;
  }
  const record: SQSRecord = {
    messageId: message.MessageId ?? "",
    receiptHandle: message.ReceiptHandle ?? "",
    body: message.Body ?? "",
    attributes,
    messageAttributes: toRecordMessageAttributes(message.MessageAttributes ?? {}),
    md5OfBody: message.MD5OfBody ?? "",
    eventSource: "aws:sqs",
    eventSourceARN: queueArn,
    awsRegion: queueArn.split(":")[3] ?? "",
  };
  if (message.MD5OfMessageAttributes !== undefined) record.md5OfMessageAttributes = message.MD5OfMessageAttributes;
  return record;
}

function toRecordMessageAttributes(attributes: Record<string, MessageAttributeValue>): SQSMessageAttributes {
  const result: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(attributes)) {
    result[name] = {
      dataType: value.DataType ?? "String",
      ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
      ...(value.BinaryValue !== undefined ? { binaryValue: Buffer.from(value.BinaryValue).toString("base64") } : {}),
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map((b) => Buffer.from(b).toString("base64")),
    };
  }
  return result;
}

/** A Lambda context for a locally invoked handler; the deadline is what Powertools and apply see. */
export function lambdaContext(functionName: string, queueArn: string, timeoutMs: number): Context {
  const [, , , region = "us-east-1", account = "000000000000"] = queueArn.split(":");
  const deadline = Date.now() + timeoutMs;
  const noop = (): void => undefined;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:${region}:${account}:function:${functionName}`,
    memoryLimitInMB: "1024",
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: "local",
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: noop,
    fail: noop,
    succeed: noop,
  };
}
