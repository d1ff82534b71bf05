import { Duration } from "aws-cdk-lib";
import { Match, Rule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import { Grant } from "aws-cdk-lib/aws-iam";
import type { IDestination, IFunction } from "aws-cdk-lib/aws-lambda";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { CATALOGUE_KEY_WILDCARD, DOCUMENT_EVENT_TYPES } from "../document-events.js";
import type { DocumentsBucket } from "./documents-bucket.js";

interface DocumentEventsProps {
  documents: DocumentsBucket;
  /** The s3-events function: bumps the catalogue version of each event's level. */
  handler: IFunction;
}

/** Lambda's own retries of a failed asynchronous invocation (0–2). */
export const DOCUMENT_EVENT_FUNCTION_RETRIES = 2;
/** EventBridge's delivery retries (throttling, an unavailable function) before the DLQ. */
export const DOCUMENT_EVENT_DELIVERY_RETRIES = 8;

/**
 * Writes that bypass the documents API (console, CLI, replication) reach the catalogue through
 * the bucket's EventBridge notifications (DocumentsBucket publishes them): a rule on the default
 * bus passes this bucket's Object Created / Object Deleted events for catalogue keys to the
 * handler. An event that cannot be applied ends in one standard dead-letter queue, whichever side
 * gave up: EventBridge after failed deliveries, or Lambda after the function failed its retries.
 * Either way a level may be stale until its next write, so the queue is alarmed (skills-stack.ts).
 */
export class DocumentEvents extends Construct {
  readonly rule: Rule;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: DocumentEventsProps) {
    super(scope, id);
    const { documents, handler } = props;
    this.deadLetterQueue = new Queue(this, "DeadLetterQueue", {
      // EventBridge and Lambda destinations cannot send to FIFO queues.
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.rule = new Rule(this, "Rule", {
      description: "Catalogue version bumps for document writes that bypass the documents API",
      eventPattern: {
        source: ["aws.s3"],
        detailType: [...DOCUMENT_EVENT_TYPES],
        detail: { bucket: { name: [documents.bucket.bucketName] }, object: { key: Match.wildcard(CATALOGUE_KEY_WILDCARD) } },
      },
    });
    // Lambda accepts an asynchronous event at once; this policy covers only delivering it.
    this.rule.addTarget(
      new LambdaFunction(handler, {
        deadLetterQueue: this.deadLetterQueue,
        retryAttempts: DOCUMENT_EVENT_DELIVERY_RETRIES,
        maxEventAge: Duration.hours(2),
      }),
    );
    // The function's failures: Lambda retries, then sends the event record to the same queue.
    handler.configureAsyncInvoke({
      retryAttempts: DOCUMENT_EVENT_FUNCTION_RETRIES,
      maxEventAge: Duration.hours(1),
      onFailure: sendOnlyQueueDestination(this.deadLetterQueue),
    });
  }
}

/** An on-failure destination granting sqs:SendMessage alone (SqsDestination adds GetQueueAttributes and GetQueueUrl). */
const sendOnlyQueueDestination = (queue: Queue): IDestination => ({
  bind: (_scope, fn) => {
    Grant.addToPrincipal({ grantee: fn, actions: ["sqs:SendMessage"], resourceArns: [queue.queueArn] });
    return { destination: queue.queueArn };
  },
});
