import { fifoQueueUrl } from "../lanes/fifo-queue-url.js";
import { loadOnce } from "../lazy/load-once.js";
import { LaneOnFirstUse } from "./ports-on-first-use.js";
import type { SqsWiring } from "./sqs-from-env.js";

/**
 * The lane worker's SQS adapters (sqs-from-env.ts, with the DLQ), imported and built on the first
 * enqueue or park: a composed turn does neither. The queue URLs are checked now, as the adapters
 * would check them, so a wrong one still fails the init.
 */
export const sqsOnFirstUse: SqsWiring = (environment, instrument) => {
  const adapters = loadOnce(async () => (await import("./lane-worker-adapters.js")).sqsWithDeadLetterFromEnv(environment, instrument));
  return {
    lane: (queueUrl) => {
      fifoQueueUrl(queueUrl, "Lane queue");
      return new LaneOnFirstUse(async () => (await adapters()).lane(queueUrl));
    },
    deadLetter: (queueUrl) => {
      fifoQueueUrl(queueUrl, "Lane DLQ");
      const park = loadOnce(async () => (await adapters()).deadLetter(queueUrl));
      return async (record, error) => (await park())(record, error);
    },
  };
};
