import { SendMessageCommand } from "@aws-sdk/client-sqs";
import type { SQSClient } from "@aws-sdk/client-sqs";
import type { Lane } from "./lane.js";
import { fifoQueueUrl } from "./fifo-queue-url.js";
import { laneDeduplicationId, laneGroupIdOf } from "./lane-identity.js";
import { encodeLaneMessage, LANE_MESSAGE_MAX_BYTES } from "./lane-message.js";
import type { LaneMessage } from "./lane-message.js";

interface SqsLaneOptions {
  maxBodyBytes?: number;
}

/**
 * Lane on an SQS FIFO queue: one message group per process (`<tenant>#<processId>`), and
 * de-duplication by (tenant, processId, requestId), see lane-identity.ts. The queue must not
 * use content-based de-duplication: two identical commands with different requestIds are two
 * requests.
 */
export class SqsLane implements Lane {
  private readonly maxBodyBytes: number;

  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    options: SqsLaneOptions = {},
  ) {
    fifoQueueUrl(queueUrl, "Lane queue");
    this.maxBodyBytes = options.maxBodyBytes ?? LANE_MESSAGE_MAX_BYTES;
  }

  async enqueue(message: LaneMessage): Promise<void> {
    const body = encodeLaneMessage(message, this.maxBodyBytes);
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: body,
        MessageGroupId: laneGroupIdOf(message),
        MessageDeduplicationId: laneDeduplicationId(message),
      }),
    );
  }
}
