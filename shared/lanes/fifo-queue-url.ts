import { LaneConfigurationError } from "./lane-errors.js";

/**
 * The lane and its DLQ are FIFO queues: per-process order and de-duplication depend on it. Checked
 * where the SQS adapters are built, and at init by a function that builds them on first use
 * (shared/wiring/sqs-on-first-use.ts), so a wrong URL still fails the init, not a later request.
 */
export function fifoQueueUrl(url: string, queue: "Lane queue" | "Lane DLQ"): string {
  if (!url.endsWith(".fifo")) throw new LaneConfigurationError(`${queue} must be a FIFO queue (*.fifo), got '${url}'`);
  return url;
}
