import type { LaneMessage } from "./lane-message.js";

/**
 * The single-threaded executor of one process: messages of a process are applied one at a
 * time, in enqueue order. Adapters: SQS FIFO (`sqs-lane.ts`) and in-memory (`in-memory-lane.ts`).
 *
 * Delivery is at-least-once: the same requestId enqueued twice is delivered once within the
 * de-duplication window (5 minutes on SQS), and a delivered message may be delivered again
 * after a failure or timeout. Applying a message at most once is the consumer's job.
 */
export interface Lane {
  /** Resolves once the message is durably queued; rejects with LaneMessageMalformed / LaneMessageTooLarge. */
  enqueue(message: LaneMessage): Promise<void>;
}
