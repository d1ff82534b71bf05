import { Duration, Stack, Token } from "aws-cdk-lib";
import { Grant } from "aws-cdk-lib/aws-iam";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { SqsEventSource } from "aws-cdk-lib/aws-lambda-event-sources";
import { DeduplicationScope, FifoThroughputLimit, Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { FUNCTION_ENVIRONMENT } from "../function-environment.js";
import { InfraConfigurationError } from "../infra-errors.js";
import type { ResourceUser } from "./resource-user.js";

interface LaneQueueProps {
  /** The lane worker's function timeout; the queue's visibility timeout is derived from it. */
  workerTimeout: Duration;
  /** Deliveries before a message is parked in the DLQ. @default 5 */
  maxReceiveCount?: number;
}

interface LaneWorkerOptions {
  /** Messages per invocation, at most 10 (the FIFO event source limit). @default 10 */
  batchSize?: number;
  /** Concurrent invocations the event source may run (2–1000). @default 10 */
  maxConcurrency?: number;
}

/**
 * The process lanes: one FIFO queue in which each process is a message group, so the mutations
 * of one process apply one at a time and in order (DESIGN.md "Spec concept"), plus its FIFO
 * dead-letter queue. Content-based de-duplication is off: the lane sets
 * MessageDeduplicationId = requestId, which is what makes a retried request apply once.
 */
export class LaneQueue extends Construct {
  /** AWS: a queue's visibility timeout should be at least six times its consumer's timeout. */
  static readonly VISIBILITY_FACTOR = 6;

  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly visibilityTimeout: Duration;
  readonly maxReceiveCount: number;

  constructor(scope: Construct, id: string, props: LaneQueueProps) {
    super(scope, id);
    this.visibilityTimeout = Duration.seconds(props.workerTimeout.toSeconds() * LaneQueue.VISIBILITY_FACTOR);
    this.maxReceiveCount = props.maxReceiveCount ?? 5;
    const fifo = {
      fifo: true,
      contentBasedDeduplication: false,
      // Throughput is per process, not per queue: many processes steer at once.
      deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    };
    this.deadLetterQueue = new Queue(this, "DeadLetterQueue", {
      ...fifo,
      queueName: this.physicalQueueName("lane-dlq"),
      retentionPeriod: Duration.days(14),
    });
    this.queue = new Queue(this, "Queue", {
      ...fifo,
      queueName: this.physicalQueueName("lane"),
      visibilityTimeout: this.visibilityTimeout,
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: this.maxReceiveCount },
    });
  }

  /** sqs:SendMessage on the lane only (enqueue steering requests, spawn activations). */
  grantSendMessages(user: ResourceUser): Grant {
    user.addEnvironment(FUNCTION_ENVIRONMENT.laneQueueUrl, this.queue.queueUrl);
    return Grant.addToPrincipal({ grantee: user, actions: ["sqs:SendMessage"], resourceArns: [this.queue.queueArn] });
  }

  /**
   * sqs:SendMessage on the DLQ only: the worker parks a message it can never apply without five
   * redeliveries, and one still failing on the last delivery the redrive policy allows.
   */
  grantParkMessages(user: ResourceUser): Grant {
    user.addEnvironment(FUNCTION_ENVIRONMENT.laneDeadLetterQueueUrl, this.deadLetterQueue.queueUrl);
    user.addEnvironment(FUNCTION_ENVIRONMENT.laneMaxReceiveCount, String(this.maxReceiveCount));
    return Grant.addToPrincipal({ grantee: user, actions: ["sqs:SendMessage"], resourceArns: [this.deadLetterQueue.queueArn] });
  }

  /**
   * Makes `worker` the lane's consumer: partial batch responses (a failed message, and the rest
   * of its group, is retried without redelivering the batch's successes) and bounded concurrency.
   * The event source grants the receive/delete actions it needs.
   */
  connectWorker(worker: LambdaFunction, options: LaneWorkerOptions = {}): SqsEventSource {
    const batchSize = options.batchSize ?? 10;
    if (batchSize < 1 || batchSize > 10) throw new InfraConfigurationError(`FIFO lane batch size must be 1..10, got ${batchSize}`);
    const timeout = worker.timeout ?? Duration.seconds(3);
    if (
      !Token.isUnresolved(timeout.toSeconds()) &&
      timeout.toSeconds() * LaneQueue.VISIBILITY_FACTOR > this.visibilityTimeout.toSeconds()
    ) {
      throw new InfraConfigurationError(
        `Lane visibility timeout ${this.visibilityTimeout.toSeconds()} s is below ${LaneQueue.VISIBILITY_FACTOR}× the worker timeout ${timeout.toSeconds()} s`,
      );
    }
    const source = new SqsEventSource(this.queue, {
      batchSize,
      reportBatchItemFailures: true,
      maxConcurrency: options.maxConcurrency ?? 10,
    });
    worker.addEventSource(source);
    return source;
  }

  /** `<stack>-lane.fifo`: readable in the console and unique per stack (queue names are per account and region). */
  private physicalQueueName(base: string): string {
    return `${Stack.of(this).stackName}-${base}.fifo`;
  }
}
