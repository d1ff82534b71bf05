import { CreateQueueCommand, GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import type { SQSClient } from "@aws-sdk/client-sqs";
import { LaneConfigurationError } from "../../shared/lanes/lane-errors.js";

interface LaneQueueSettings {
  /** Deliveries before a message is parked in the DLQ. */
  maxReceiveCount?: number;
  /** Seconds a received message stays hidden; must exceed the worker's timeout. */
  visibilityTimeout?: number;
}

export interface LaneQueues {
  queueUrl: string;
  queueArn: string;
  deadLetterQueueUrl: string;
  deadLetterQueueArn: string;
}

/**
 * Creates `<base>-dlq.fifo` and `<base>.fifo` with a redrive policy (idempotent for equal
 * settings). The deployed stack builds the same pair in CDK; this is for the local stack and
 * tests. Content-based de-duplication stays off: the lane sets MessageDeduplicationId itself.
 */
export async function createLaneQueues(sqs: SQSClient, baseName: string, settings: LaneQueueSettings = {}): Promise<LaneQueues> {
  const maxReceiveCount = settings.maxReceiveCount ?? 5;
  const visibilityTimeout = settings.visibilityTimeout ?? 30;
  if (baseName.endsWith(".fifo")) {
    throw new LaneConfigurationError(`Pass the base name without '.fifo', got '${baseName}'`);
  }
  const fifo = { FifoQueue: "true", ContentBasedDeduplication: "false" };
  const deadLetterQueueUrl = await createQueue(sqs, `${baseName}-dlq.fifo`, { ...fifo, MessageRetentionPeriod: "1209600" });
  const deadLetterQueueArn = await queueArn(sqs, deadLetterQueueUrl);
  const queueUrl = await createQueue(sqs, `${baseName}.fifo`, {
    ...fifo,
    VisibilityTimeout: String(visibilityTimeout),
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: deadLetterQueueArn, maxReceiveCount }),
  });
  return { queueUrl, queueArn: await queueArn(sqs, queueUrl), deadLetterQueueUrl, deadLetterQueueArn };
}

async function createQueue(sqs: SQSClient, name: string, attributes: Record<string, string>): Promise<string> {
  const { QueueUrl: url } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  if (url === undefined) throw new LaneConfigurationError(`CreateQueue ${name} returned no QueueUrl`);
  return url;
}

async function queueArn(sqs: SQSClient, queueUrl: string): Promise<string> {
  const { Attributes: attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ["QueueArn"] }));
  const arn = attributes?.QueueArn;
  if (arn === undefined) throw new LaneConfigurationError(`Queue ${queueUrl} reported no QueueArn`);
  return arn;
}
