import { processPartialResponse, SqsFifoPartialProcessorAsync } from "@aws-lambda-powertools/batch";
import { Logger as PowertoolsLogger } from "@aws-lambda-powertools/logger";
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import { LaneGroupMismatch } from "./lane-errors.js";
import { laneGroupIdOf } from "./lane-identity.js";
import { decodeLaneMessage } from "./lane-message.js";
import type { LaneMessage } from "./lane-message.js";
import type { Logger } from "../support/logger.js";

/** Where and how often a message was delivered; lets `apply` give up on a request deliberately. */
export interface LaneDelivery {
  messageId: string;
  groupId: string | undefined;
  receiveCount: number;
  /**
   * The last delivery the queue's redrive policy allows (receiveCount ≥ maxReceiveCount): if it
   * fails, the message leaves the lane. Absent when the worker was not told the limit.
   */
  lastAttempt?: boolean;
}

/**
 * Applies one lane message. It must be idempotent per requestId (SQS delivers at least once)
 * and should settle domain failures itself (record the request as FAILED and resolve): a
 * rejection means "try again later" and holds back the rest of the process's lane until the
 * message succeeds or reaches the DLQ.
 */
export type LaneApply = (message: LaneMessage, delivery: LaneDelivery) => Promise<void>;

/**
 * Takes a poison record out of the lane (e.g. sends it to the DLQ at once, see
 * sqs-lane-dead-letter.ts). When it resolves, the record counts as handled and its group moves
 * on; when it rejects, the record is reported as failed like any other.
 */
export type LanePoisonHandler = (record: SQSRecord, error: unknown) => Promise<void>;

export interface LaneWorkerOptions {
  /** Defaults to a Powertools Logger (level from POWERTOOLS_LOG_LEVEL, e.g. SILENT in tests). */
  logger?: Pick<Logger, "debug" | "warn" | "error">;
  onPoison?: LanePoisonHandler;
  /**
   * The lane queue's maxReceiveCount. `apply` then sees `delivery.lastAttempt` (and can settle the
   * request before it is lost), and a record still failing on that delivery goes to `onPoison`
   * instead of back to the queue, so the rest of its group goes on in this very batch. Left to
   * the redrive policy, on AWS the group's later records, received in the same batches and
   * skipped, would have used up their receive counts too and follow it into the DLQ, unapplied.
   */
  maxReceiveCount?: number;
}

export type LaneWorkerHandler = (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>;

/**
 * SQS handler for the lane queue (event source mapping with ReportBatchItemFailures).
 *
 * Records of one group are applied in order; the first failure in a group reports that record
 * and every later record of the group as failed, while other groups go on (Powertools'
 * `skipGroupOnError`).
 *
 * A record that does not decode (or sits in the wrong group) is poison; retrying cannot help.
 * Without `onPoison` it is reported as failed, so the redrive policy moves it to the DLQ after
 * maxReceiveCount; until then its group is blocked, and on AWS the later records of the group
 * that keep arriving in the same batches use up their receive counts too and may follow it into
 * the DLQ. With `onPoison` parking it in the DLQ right away, only the poison record leaves the
 * lane, and it is kept (not dropped) for a redrive once a fixed worker is deployed.
 */
export function createLaneWorkerHandler(apply: LaneApply, options: LaneWorkerOptions = {}): LaneWorkerHandler {
  const logger = options.logger ?? new PowertoolsLogger({ serviceName: "skills-lane-worker" });

  const applyRecord = async (record: SQSRecord): Promise<void> => {
    const receiveCount = Number.parseInt(record.attributes.ApproximateReceiveCount, 10) || 1;
    const delivery: LaneDelivery = {
      messageId: record.messageId,
      groupId: record.attributes.MessageGroupId,
      receiveCount,
      ...(options.maxReceiveCount !== undefined ? { lastAttempt: receiveCount >= options.maxReceiveCount } : {}),
    };
    let message: LaneMessage;
    try {
      message = decodeLaneMessage(record.body);
      const expectedGroupId = laneGroupIdOf(message);
      if (delivery.groupId !== undefined && delivery.groupId !== expectedGroupId) {
        throw new LaneGroupMismatch(expectedGroupId, delivery.groupId);
      }
    } catch (error) {
      logger.error("Poison lane message", { ...delivery, parked: options.onPoison !== undefined, error });
      if (options.onPoison === undefined) throw error;
      await options.onPoison(record, error);
      return;
    }
    const about = { ...delivery, requestId: message.requestId, processId: message.processId, kind: message.kind };
    try {
      await apply(message, delivery);
    } catch (error) {
      if (delivery.lastAttempt === true && options.onPoison !== undefined) {
        logger.error("Lane message failed on its last delivery; parked", { ...about, error });
        await options.onPoison(record, error);
        return;
      }
      logger.warn("Lane message failed; it and the rest of its group will be redelivered", { ...about, error });
      throw error;
    }
    logger.debug("Lane message applied", about);
  };

  return async (event, context) => {
    // One processor per invocation: it keeps the batch in instance state, and the local poller
    // runs several invocations of this handler concurrently.
    const processor = new SqsFifoPartialProcessorAsync();
    const response = await processPartialResponse(event, applyRecord, processor, {
      context,
      skipGroupOnError: true,
      // Every record failed: answer with all of them instead of throwing, which Lambda would
      // treat the same way (the whole batch becomes visible again) but logs as an error twice.
      throwOnFullBatchFailure: false,
    });
    if (response.batchItemFailures.length > 0) {
      logger.warn("Lane batch has records to redeliver", {
        records: event.Records.length,
        failed: response.batchItemFailures.map((f) => f.itemIdentifier),
      });
    }
    return response;
  };
}
