import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
} from "@aws-sdk/client-sqs";
import type { Message, SQSClient } from "@aws-sdk/client-sqs";
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import { LaneConfigurationError, LaneIdleTimeout } from "../../shared/lanes/lane-errors.js";
import { failedMessageIds, lambdaContext, toSqsRecord } from "./sqs-lane-event.js";
import type { Logger } from "../../shared/support/logger.js";

const EMPTY_SHORT_POLL_PAUSE_MS = 50;

export type SqsBatchHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

interface SqsLanePollerOptions {
  sqs: SQSClient;
  queueUrl: string;
  handler: SqsBatchHandler;
  /** Concurrent receive loops, like the event source mapping's concurrency. */
  concurrency?: number;
  /** MaxNumberOfMessages per receive, 1..10. */
  batchSize?: number;
  /** Long-poll wait, 0..1 s, so that stop() returns quickly. */
  waitTimeSeconds?: number;
  /**
   * Visibility given to failed records. Unset: they reappear after the queue's visibility
   * timeout, as under Lambda; a small value makes redelivery fast in tests.
   */
  retryDelaySeconds?: number;
  functionName?: string;
  /** What `context.getRemainingTimeInMillis()` counts down from. */
  functionTimeoutMs?: number;
  logger?: Pick<Logger, "warn" | "error">;
}

export interface SqsLaneIdleOptions {
  timeoutMs?: number;
  pollIntervalMs?: number;
}

/**
 * Event-source-mapping emulator for the local stack and integration tests: receives from the
 * FIFO lane queue, hands Lambda-shaped SQS events to the handler, deletes what succeeded and
 * leaves the rest for redelivery. FIFO keeps a group away from other receivers while any of
 * its messages is in flight, so concurrent loops never apply one process's messages in parallel.
 */
export class SqsLanePoller {
  private readonly sqs: SQSClient;
  private readonly queueUrl: string;
  private readonly handler: SqsBatchHandler;
  private readonly concurrency: number;
  private readonly batchSize: number;
  private readonly waitTimeSeconds: number;
  private readonly retryDelaySeconds: number | undefined;
  private readonly functionName: string;
  private readonly functionTimeoutMs: number;
  private readonly logger: Pick<Logger, "warn" | "error">;
  private queueArn: string | undefined;
  private running = false;
  private loops: Promise<void>[] = [];
  private inFlight = 0;

  constructor(options: SqsLanePollerOptions) {
    this.sqs = options.sqs;
    this.queueUrl = options.queueUrl;
    this.handler = options.handler;
    this.concurrency = checkedInteger("concurrency", options.concurrency ?? 1, 1, 100);
    this.batchSize = checkedInteger("batchSize", options.batchSize ?? 10, 1, 10);
    this.waitTimeSeconds = checkedInteger("waitTimeSeconds", options.waitTimeSeconds ?? 1, 0, 1);
    this.retryDelaySeconds =
      options.retryDelaySeconds === undefined ? undefined : checkedInteger("retryDelaySeconds", options.retryDelaySeconds, 0, 43_200);
    this.functionName = options.functionName ?? "lane-worker";
    this.functionTimeoutMs = options.functionTimeoutMs ?? 30_000;
    this.logger = options.logger ?? console;
  }

  get isRunning(): boolean {
    return this.running;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.queueArn ??= await this.fetchQueueArn();
    this.running = true;
    this.loops = Array.from({ length: this.concurrency }, () => this.receiveLoop());
  }

  /** Stops receiving and waits for the batches already received to be handled and settled. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    this.loops = [];
  }

  /**
   * Resolves once the queue holds no visible, delayed or in-flight message and no batch is
   * being handled here. Relies on exact queue counters, which emulators and LocalStack give;
   * on AWS they are approximate.
   */
  async idle(options: SqsLaneIdleOptions = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const pollIntervalMs = options.pollIntervalMs ?? 50;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const state = await this.queueState();
      if (Object.values(state).every((n) => n === 0)) return;
      if (Date.now() >= deadline) throw new LaneIdleTimeout(timeoutMs, state);
      await sleep(pollIntervalMs);
    }
  }

  private async queueState(): Promise<Record<string, number>> {
    const handling = this.inFlight;
    const { Attributes: attributes = {} } = await this.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: this.queueUrl,
        AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"],
      }),
    );
    return {
      visible: Number(attributes.ApproximateNumberOfMessages ?? 0),
      inFlight: Number(attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
      delayed: Number(attributes.ApproximateNumberOfMessagesDelayed ?? 0),
      handling: Math.max(handling, this.inFlight),
    };
  }

  private async fetchQueueArn(): Promise<string> {
    const { Attributes: attributes } = await this.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: this.queueUrl, AttributeNames: ["QueueArn"] }),
    );
    const arn = attributes?.QueueArn;
    if (arn === undefined) throw new LaneConfigurationError(`Queue ${this.queueUrl} reported no QueueArn`);
    return arn;
  }

  private async receiveLoop(): Promise<void> {
    let backoffMs = 0;
    while (this.running) {
      let messages: Message[];
      try {
        const received = await this.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: this.queueUrl,
            MaxNumberOfMessages: this.batchSize,
            WaitTimeSeconds: this.waitTimeSeconds,
            AttributeNames: ["All"],
            MessageSystemAttributeNames: ["All"],
            MessageAttributeNames: ["All"],
          }),
        );
        messages = received.Messages ?? [];
        backoffMs = 0;
      } catch (error) {
        if (!this.running) return;
        backoffMs = Math.min(Math.max(backoffMs * 2, 100), 5_000);
        this.logger.error("Lane poller could not receive; backing off", { queueUrl: this.queueUrl, backoffMs, error });
        await sleep(backoffMs);
        continue;
      }
      if (messages.length === 0) {
        // Short polling (waitTimeSeconds 0) must not spin.
        if (this.waitTimeSeconds === 0) await sleep(EMPTY_SHORT_POLL_PAUSE_MS);
        continue;
      }
      // A batch received while stopping is still handled: abandoning it would hide its
      // messages (and block their groups) until the visibility timeout.
      this.inFlight += 1;
      try {
        await this.invoke(messages);
      } finally {
        this.inFlight -= 1;
      }
    }
  }

  private async invoke(messages: Message[]): Promise<void> {
    const queueArn = this.queueArn ?? "";
    const records = messages.map((message) => toSqsRecord(message, queueArn));
    let failedIds: ReadonlySet<string>;
    try {
      const response = await this.handler({ Records: records }, lambdaContext(this.functionName, queueArn, this.functionTimeoutMs));
      failedIds = failedMessageIds(response, records);
    } catch (error) {
      this.logger.error("Lane handler threw; the whole batch will be redelivered", { error });
      failedIds = new Set(records.map((r) => r.messageId));
    }
    const succeeded = records.filter((r) => !failedIds.has(r.messageId));
    const failed = records.filter((r) => failedIds.has(r.messageId));
    await this.settle(succeeded, failed);
  }

  private async settle(succeeded: SQSRecord[], failed: SQSRecord[]): Promise<void> {
    try {
      if (succeeded.length > 0) {
        const result = await this.sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: succeeded.map((r, i) => ({ Id: `r${i}`, ReceiptHandle: r.receiptHandle })),
          }),
        );
        if ((result.Failed ?? []).length > 0) {
          this.logger.warn("Lane poller could not delete some records; they will be redelivered", { failed: result.Failed });
        }
      }
      if (failed.length > 0 && this.retryDelaySeconds !== undefined) {
        await this.sqs.send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: failed.map((r, i) => ({ Id: `r${i}`, ReceiptHandle: r.receiptHandle, VisibilityTimeout: this.retryDelaySeconds })),
          }),
        );
      }
    } catch (error) {
      // At-least-once: an unsettled record simply comes back after its visibility timeout.
      this.logger.error("Lane poller could not settle a batch", { error });
    }
  }
}

function checkedInteger(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new LaneConfigurationError(`${name} must be an integer in ${min}..${max}, got ${value}`);
  }
  return value;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
