import type { SQSEvent, SQSRecord } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { LaneMessageMalformed } from "../../shared/lanes/lane-errors.js";
import { laneGroupId } from "../../shared/lanes/lane-identity.js";
import { encodeLaneMessage } from "../../shared/lanes/lane-message.js";
import type { LaneMessage } from "../../shared/lanes/lane-message.js";
import { createLaneWorkerHandler } from "../../shared/lanes/lane-worker.js";
import type { LaneDelivery } from "../../shared/lanes/lane-worker.js";
import type { Logger } from "../../shared/support/logger.js";

const TENANT = "acme";

function laneMessage(processId: string, label: string): LaneMessage {
  return {
    requestId: `req-${label}`,
    processId,
    tenant: TENANT,
    user: { login: "alice" },
    kind: "skill.activate",
    payload: { label },
    enqueuedAt: new Date(0).toISOString(),
  };
}

/** A record as Lambda's SQS event source mapping delivers it from the FIFO lane queue. */
function record(processId: string, label: string, options: { body?: string; groupId?: string; receiveCount?: number } = {}): SQSRecord {
  return {
    messageId: `msg-${label}`,
    receiptHandle: `rh-${label}`,
    body: options.body ?? encodeLaneMessage(laneMessage(processId, label)),
    attributes: {
      ApproximateReceiveCount: String(options.receiveCount ?? 1),
      SentTimestamp: "1700000000000",
      SenderId: "AROAEXAMPLE",
      ApproximateFirstReceiveTimestamp: "1700000000001",
      SequenceNumber: "18849496460467696128",
      MessageGroupId: options.groupId ?? laneGroupId(TENANT, processId),
      MessageDeduplicationId: `dedup-${label}`,
    },
    messageAttributes: {},
    md5OfBody: "0".repeat(32),
    eventSource: "aws:sqs",
    eventSourceARN: "arn:aws:sqs:us-east-1:000000000000:lane.fifo",
    awsRegion: "us-east-1",
  };
}

const event = (...records: SQSRecord[]): SQSEvent => ({ Records: records });
const labelOf = (m: LaneMessage): string => (m.payload as { label: string }).label;
const failedIds = (response: { batchItemFailures: { itemIdentifier: string }[] }): string[] =>
  response.batchItemFailures.map((f) => f.itemIdentifier);

function recordingLogger(): Pick<Logger, "debug" | "warn" | "error"> & {
  entries: { level: string; message: string; extra: Record<string, unknown> }[];
} {
  const entries: { level: string; message: string; extra: Record<string, unknown> }[] = [];
  const log =
    (level: string) =>
    (message: string, ...extra: Record<string, unknown>[]) => {
      entries.push({ level, message, extra: Object.assign({}, ...extra) });
    };
  return { entries, debug: log("debug"), warn: log("warn"), error: log("error") };
}

describe("lane worker handler", () => {
  it("stops a group at its first failure and lets the other groups proceed", async () => {
    // Prepare
    const applied: string[] = [];
    const handler = createLaneWorkerHandler(
      async (m) => {
        if (labelOf(m) === "A2") throw new Error("conditional write lost");
        applied.push(labelOf(m));
      },
      { logger: recordingLogger() },
    );
    const batch = event(record("A", "A1"), record("B", "B1"), record("A", "A2"), record("B", "B2"), record("A", "A3"), record("B", "B3"));

    // Act
    const response = await handler(batch);

    // Assess
    expect(failedIds(response)).toEqual(["msg-A2", "msg-A3"]);
    expect(applied).toEqual(["A1", "B1", "B2", "B3"]);
  });

  it("applies a group's records one after another, in batch order", async () => {
    // Prepare
    const trace: string[] = [];
    const handler = createLaneWorkerHandler(
      async (m) => {
        trace.push(`start ${labelOf(m)}`);
        await new Promise((resolve) => setTimeout(resolve, 2));
        trace.push(`end ${labelOf(m)}`);
      },
      { logger: recordingLogger() },
    );

    // Act
    const response = await handler(event(record("A", "A1"), record("A", "A2")));

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(trace).toEqual(["start A1", "end A1", "start A2", "end A2"]);
  });

  it("reports a malformed body as a failed item (poison) without failing the batch", async () => {
    // Prepare
    const applied: string[] = [];
    const logger = recordingLogger();
    const handler = createLaneWorkerHandler(async (m) => void applied.push(labelOf(m)), { logger });

    // Act
    const response = await handler(
      event(
        record("A", "A1", { body: "{not json" }),
        record("A", "A2"),
        record("B", "B1", { body: '{"kind":"skill.activate"}' }),
        record("C", "C1"),
      ),
    );

    // Assess
    expect(failedIds(response)).toEqual(["msg-A1", "msg-A2", "msg-B1"]);
    expect(applied).toEqual(["C1"]);
    const poison = logger.entries.filter((e) => e.level === "error" && e.message === "Poison lane message");
    expect(poison.map((e) => e.extra.messageId)).toEqual(["msg-A1", "msg-B1"]);
  });

  it("hands poison to onPoison and moves on with its group when parking succeeds", async () => {
    // Prepare
    const applied: string[] = [];
    const parked: { messageId: string; error: unknown }[] = [];
    const handler = createLaneWorkerHandler(async (m) => void applied.push(labelOf(m)), {
      logger: recordingLogger(),
      onPoison: async (r, error) => void parked.push({ messageId: r.messageId, error }),
    });

    // Act
    const response = await handler(event(record("A", "A1", { body: "{not json" }), record("A", "A2")));

    // Assess
    expect(failedIds(response)).toEqual([]);
    expect(applied).toEqual(["A2"]);
    expect(parked.map((p) => p.messageId)).toEqual(["msg-A1"]);
    expect(parked[0]?.error).toBeInstanceOf(LaneMessageMalformed);
  });

  it("reports poison as failed when parking it fails", async () => {
    // Prepare
    const handler = createLaneWorkerHandler(async () => undefined, {
      logger: recordingLogger(),
      onPoison: async () => {
        throw new Error("DLQ unreachable");
      },
    });

    // Act
    const response = await handler(event(record("A", "A1", { body: "[]" }), record("A", "A2")));

    // Assess
    expect(failedIds(response)).toEqual(["msg-A1", "msg-A2"]);
  });

  it("never hands an apply failure to onPoison", async () => {
    // Prepare
    const parked: string[] = [];
    const handler = createLaneWorkerHandler(
      async () => {
        throw new Error("transient");
      },
      { logger: recordingLogger(), onPoison: async (r) => void parked.push(r.messageId) },
    );

    // Act
    const response = await handler(event(record("A", "A1")));

    // Assess
    expect(failedIds(response)).toEqual(["msg-A1"]);
    expect(parked).toEqual([]);
  });

  it("treats a message that arrived in another process's group as poison", async () => {
    // Prepare
    const applied: string[] = [];
    const handler = createLaneWorkerHandler(async (m) => void applied.push(labelOf(m)), { logger: recordingLogger() });

    // Act
    const response = await handler(event(record("A", "A1", { groupId: laneGroupId(TENANT, "X") }), record("B", "B1")));

    // Assess
    expect(failedIds(response)).toEqual(["msg-A1"]);
    expect(applied).toEqual(["B1"]);
  });

  it("answers with every record when all of them fail instead of throwing", async () => {
    // Prepare
    const handler = createLaneWorkerHandler(
      async () => {
        throw new Error("table unavailable");
      },
      { logger: recordingLogger() },
    );

    // Act
    const response = await handler(event(record("A", "A1"), record("B", "B1")));

    // Assess
    expect(failedIds(response)).toEqual(["msg-A1", "msg-B1"]);
  });

  it("passes the delivery, including the receive count, to apply", async () => {
    // Prepare
    const deliveries: LaneDelivery[] = [];
    const handler = createLaneWorkerHandler(async (_m, delivery) => void deliveries.push(delivery), { logger: recordingLogger() });

    // Act
    await handler(event(record("A", "A1", { receiveCount: 3 })));

    // Assess
    expect(deliveries).toEqual([{ messageId: "msg-A1", groupId: laneGroupId(TENANT, "A"), receiveCount: 3 }]);
  });

  it("keeps concurrent invocations of one handler apart", async () => {
    // Prepare: the slow failing batch is still running while the second one completes.
    const handler = createLaneWorkerHandler(
      async (m) => {
        if (labelOf(m) === "A1") {
          await new Promise((resolve) => setTimeout(resolve, 20));
          throw new Error("fails late");
        }
      },
      { logger: recordingLogger() },
    );

    // Act
    const [first, second] = await Promise.all([
      handler(event(record("A", "A1"), record("A", "A2"))),
      handler(event(record("C", "C1"), record("C", "C2"))),
    ]);

    // Assess
    expect(failedIds(first)).toEqual(["msg-A1", "msg-A2"]);
    expect(failedIds(second)).toEqual([]);
  });

  it("logs why a message failed with its request and process", async () => {
    // Prepare
    const logger = recordingLogger();
    const handler = createLaneWorkerHandler(
      async () => {
        throw new Error("boom");
      },
      { logger },
    );

    // Act
    await handler(event(record("A", "A1")));

    // Assess
    const failure = logger.entries.find((e) => e.level === "warn" && e.extra.requestId === "req-A1");
    expect(failure?.extra).toMatchObject({ processId: "A", kind: "skill.activate", messageId: "msg-A1" });
    expect((failure?.extra.error as Error).message).toBe("boom");
  });
});
