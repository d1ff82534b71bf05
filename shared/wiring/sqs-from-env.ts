import { sqsClient } from "../aws/aws-sqs-client.js";
import type { ClientInstrumentation } from "../aws/aws-clients.js";
import type { Lane } from "../lanes/lane.js";
import type { LanePoisonHandler } from "../lanes/lane-worker.js";
import { createSqsLaneDeadLetter } from "../lanes/sqs-lane-dead-letter.js";
import { SqsLane } from "../lanes/sqs-lane.js";
import type { AppEnvironment } from "./app-environment.js";

/** The lane's SQS adapters of one container, on one client. */
export interface SqsAdapters {
  lane(queueUrl: string): Lane;
  /** Only the lane worker parks poison records (sqsWithDeadLetterFromEnv). */
  deadLetter?(queueUrl: string): LanePoisonHandler;
}

/** How runtimeFromEnv gets them: sqsFromEnv at init, or the lane worker's sqsOnFirstUse. */
export type SqsWiring = (environment: AppEnvironment, instrument?: ClientInstrumentation) => SqsAdapters;

/*
 * The only module of the wiring that loads the SQS SDK. A function that enqueues on its requests
 * passes sqsFromEnv to runtimeFromEnv and so loads it at init; the lane worker, which enqueues only
 * for a spawn, a child's report or a poison record, imports it on first use (sqs-on-first-use.ts).
 */

export const sqsFromEnv: SqsWiring = (environment, instrument) => {
  const client = sqsClient(environment, instrument);
  return { lane: (queueUrl) => new SqsLane(client, queueUrl) };
};

export const sqsWithDeadLetterFromEnv = (environment: AppEnvironment, instrument?: ClientInstrumentation): Required<SqsAdapters> => {
  const client = sqsClient(environment, instrument);
  return {
    lane: (queueUrl) => new SqsLane(client, queueUrl),
    deadLetter: (queueUrl) => createSqsLaneDeadLetter(client, queueUrl),
  };
};
