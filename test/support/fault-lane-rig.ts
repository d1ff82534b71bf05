import { randomUUID } from "node:crypto";
import { DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, afterEach, beforeAll } from "vitest";
import { DeleteQueueCommand, ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import type { Message, SQSClient } from "@aws-sdk/client-sqs";
import { createSkillsApp } from "../../shared/app/skills-app.js";
import type { SkillsApp } from "../../shared/app/skills-app.js";
import type { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import type { Lane } from "../../shared/lanes/lane.js";
import type { LaneMessage, LaneUser } from "../../shared/lanes/lane-message.js";
import { createLaneWorkerHandler } from "../../shared/lanes/lane-worker.js";
import type { LaneWorkerHandler } from "../../shared/lanes/lane-worker.js";
import { createSqsLaneDeadLetter } from "../../shared/lanes/sqs-lane-dead-letter.js";
import { SqsLane } from "../../shared/lanes/sqs-lane.js";
import { SqsLanePoller } from "../../infra/local/sqs-lane-poller.js";
import type { SqsBatchHandler } from "../../infra/local/sqs-lane-poller.js";
import { createLaneQueues } from "../../infra/local/sqs-lane-queues.js";
import type { LaneQueues } from "../../infra/local/sqs-lane-queues.js";
import { DynamoDBProcessStore } from "../../shared/processes/dynamodb-process-store.js";
import { DynamoDBRequestStore } from "../../shared/processes/dynamodb-request-store.js";
import type { Process } from "../../shared/processes/process.js";
import type { RequestRecord, RequestStore } from "../../shared/processes/request-store.js";
import type { TemplateRenderer } from "../../shared/templates/template-renderer.js";
import type { WorkloadStep } from "./fault-workload.js";
import { serialReplay, workloadDocuments } from "./fault-workload.js";
import { EmptyLayer, FakeRenderer } from "./steering-harness.js";
import { testDynamoDbClient, testSqsClient } from "./aws-clients.js";
import { createTableIfMissing } from "../../infra/local/dynamodb-table.js";

/**
 * The lane as deployed, on the emulators: a producer app (the HTTP functions) and a worker app
 * (the lane-worker function) with their own DynamoDB clients on one table, an SQS FIFO lane with
 * its DLQ, the Powertools worker handler and the event-source poller. Each piece can be bent
 * for a fault: the worker's client, its request store, the handler the poller calls.
 */

export const ALICE: LaneUser = { login: "alice" };
export const PROJECT = "proj1";
const silent = { debug: () => undefined, warn: () => undefined, error: () => undefined };

export interface LaneRigOptions {
  sqs: SQSClient;
  tableName: string;
  producerDynamoDb: DynamoDBClient;
  /** The worker's client (e.g. one with injected faults); default: the producer's. */
  workerDynamoDb?: DynamoDBClient;
  maxReceiveCount?: number;
  /** Seconds before a failed record is visible again; 0 redelivers at once. */
  retryDelaySeconds?: number;
  /** Tell the worker the redrive limit (settle and park on the last delivery). @default true */
  workerKnowsLimit?: boolean;
  /** Park poison and exhausted records in the DLQ from the worker. @default true */
  parkInDeadLetterQueue?: boolean;
  wrapWorkerRequests?: (store: RequestStore) => RequestStore;
  /** Wraps the worker handler as the poller calls it (duplicate invocations, crashes, …). */
  wrapHandler?: (handler: LaneWorkerHandler, queues: LaneQueues) => SqsBatchHandler;
  renderer?: TemplateRenderer;
  documents?: InMemoryDocumentStore;
  concurrency?: number;
}

export interface LaneRig {
  tenant: string;
  /** The producer side (HTTP functions): spawns, enqueues, reads. */
  app: SkillsApp;
  worker: SkillsApp;
  documents: InMemoryDocumentStore;
  queues: LaneQueues;
  handler: LaneWorkerHandler;
  poller: SqsLanePoller;
  /** Every message the producer enqueued, per process, in enqueue order. */
  enqueued: Map<string, LaneMessage[]>;
  /** Requests settled by the worker, in the order it settled them (a redelivery may settle again). */
  settled: { message: LaneMessage; record: RequestRecord }[];
  spawn(sessionId?: string): Promise<Process>;
  /** Sends one workload step through the producer; resolves with its requestId. */
  send(processId: string, step: WorkloadStep, turnIds: Map<string, string>): Promise<string>;
  /** Waits until the lane queue is drained and nothing is being handled. */
  idle(timeoutMs?: number): Promise<void>;
  deadLetters(): Promise<Message[]>;
  close(): Promise<void>;
}

/** Lane wrapper that remembers what was enqueued, per process and in order. */
class RecordingLane implements Lane {
  constructor(
    private readonly inner: Lane,
    readonly enqueued: Map<string, LaneMessage[]>,
  ) {}

  async enqueue(message: LaneMessage): Promise<void> {
    await this.inner.enqueue(message);
    const list = this.enqueued.get(message.processId) ?? [];
    list.push(structuredClone(message));
    this.enqueued.set(message.processId, list);
  }
}

export async function startLaneRig(options: LaneRigOptions): Promise<LaneRig> {
  const { sqs, tableName } = options;
  const tenant = `t${randomUUID().slice(0, 8)}`;
  const documents = options.documents ?? (await workloadDocuments(tenant));
  const maxReceiveCount = options.maxReceiveCount ?? 5;
  const queues = await createLaneQueues(sqs, `fault-${randomUUID().slice(0, 8)}`, { maxReceiveCount, visibilityTimeout: 30 });
  const enqueued = new Map<string, LaneMessage[]>();
  const renderer = options.renderer ?? new FakeRenderer();
  const requestStore = (client: DynamoDBClient) => new DynamoDBRequestStore(client, tableName, { pollStartMs: 20, pollMaxMs: 100 });

  const app = createSkillsApp({
    documents,
    bundled: new EmptyLayer(),
    processes: new DynamoDBProcessStore(options.producerDynamoDb, tableName),
    requests: requestStore(options.producerDynamoDb),
    lane: new RecordingLane(new SqsLane(sqs, queues.queueUrl), enqueued),
    renderer,
    logger: silent,
  });

  const settled: LaneRig["settled"] = [];
  const workerDb = options.workerDynamoDb ?? options.producerDynamoDb;
  const workerRequests = requestStore(workerDb);
  const worker = createSkillsApp({
    documents,
    bundled: new EmptyLayer(),
    processes: new DynamoDBProcessStore(workerDb, tableName, { backoff: { baseMs: 2, capMs: 20 } }),
    requests: options.wrapWorkerRequests ? options.wrapWorkerRequests(workerRequests) : workerRequests,
    // Spawned children would be enqueued here; the mix spawns none, so nothing is recorded.
    lane: new SqsLane(sqs, queues.queueUrl),
    renderer,
    logger: silent,
    onApplied: (message, record) => settled.push({ message, record }),
  });
  const handler = createLaneWorkerHandler(worker.applyLaneMessage, {
    logger: silent,
    ...((options.workerKnowsLimit ?? true) ? { maxReceiveCount } : {}),
    ...((options.parkInDeadLetterQueue ?? true) ? { onPoison: createSqsLaneDeadLetter(sqs, queues.deadLetterQueueUrl) } : {}),
  });
  const poller = new SqsLanePoller({
    sqs,
    queueUrl: queues.queueUrl,
    handler: options.wrapHandler ? options.wrapHandler(handler, queues) : handler,
    concurrency: options.concurrency ?? 4,
    waitTimeSeconds: 0,
    retryDelaySeconds: options.retryDelaySeconds ?? 0,
    logger: silent,
  });
  await poller.start();

  return {
    tenant,
    app,
    worker,
    documents,
    queues,
    handler,
    poller,
    enqueued,
    settled,
    spawn: (sessionId = `s-${randomUUID()}`) => app.spawn(tenant, ALICE, { sessionId, recipe: "open", projectId: PROJECT }),
    async send(processId, step, turnIds) {
      switch (step.kind) {
        case "steer":
          return (await app.steerSkill(tenant, processId, ALICE, step.body)).requestId;
        case "compose": {
          const accepted = await app.composeTurn(tenant, processId, ALICE, { message: step.message, requestId: step.requestId });
          turnIds.set(step.requestId, accepted.turnId);
          return accepted.requestId;
        }
        case "complete": {
          const turnId = turnIds.get(step.composeRequestId) ?? "no-such-turn";
          return (
            await app.completeTurn(tenant, processId, ALICE, turnId, { output: step.output, final: step.final, requestId: step.requestId })
          ).requestId;
        }
      }
    },
    idle: (timeoutMs = 40_000) => poller.idle({ timeoutMs, pollIntervalMs: 25 }),
    async deadLetters() {
      const messages: Message[] = [];
      for (;;) {
        const { Messages: batch = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queues.deadLetterQueueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 0,
            MessageAttributeNames: ["All"],
            MessageSystemAttributeNames: ["All"],
          }),
        );
        if (batch.length === 0) return messages;
        messages.push(...batch);
      }
    },
    async close() {
      await poller.stop();
      await sqs.send(new DeleteQueueCommand({ QueueUrl: queues.queueUrl }));
      await sqs.send(new DeleteQueueCommand({ QueueUrl: queues.deadLetterQueueUrl }));
    },
  };
}

export interface LaneOutcome {
  /** The process as the lane left it. */
  process: Process;
  /** Every enqueued request's record (undefined when there is none). */
  records: Map<string, RequestRecord | undefined>;
  /** The same messages applied serially, in enqueue order, on in-memory stores. */
  replay: { process: Process; records: Map<string, RequestRecord> };
}

/**
 * What the lane did to one process, next to what a serial replay of the messages enqueued for
 * it does. FIFO promises the enqueue order, so that is the order to replay.
 */
export async function laneOutcome(rig: LaneRig, initial: Process, options: { exclude?: ReadonlySet<string> } = {}): Promise<LaneOutcome> {
  const messages = rig.enqueued.get(initial.processId) ?? [];
  const records = new Map<string, RequestRecord | undefined>();
  for (const message of messages)
    records.set(message.requestId, await rig.app.getRequest(rig.tenant, message.processId, message.requestId));
  const replayed = messages.filter((m) => !options.exclude?.has(m.requestId));
  return {
    process: await rig.app.getProcess(rig.tenant, initial.processId),
    records,
    replay: await serialReplay(initial, replayed, { documents: rig.documents }),
  };
}

/**
 * One table and one pair of emulator clients per test file, and `start(options)` for rigs on them
 * that are closed after each test. Registers the file's hooks; call it at module level.
 */
export function laneRigFixture(label: string): { start(options?: Partial<LaneRigOptions>): Promise<LaneRig>; readonly sqs: SQSClient } {
  let ddb: DynamoDBClient;
  let sqs: SQSClient;
  let tableName: string;
  const rigs: LaneRig[] = [];
  beforeAll(async () => {
    ddb = testDynamoDbClient();
    sqs = testSqsClient();
    tableName = `skills-fault-${label}-${randomUUID().slice(0, 8)}`;
    await createTableIfMissing(ddb, tableName);
  });
  afterEach(async () => {
    for (const rig of rigs.splice(0)) await rig.close();
  });
  afterAll(async () => {
    await ddb.send(new DeleteTableCommand({ TableName: tableName }));
    ddb.destroy();
    sqs.destroy();
  });
  return {
    get sqs() {
      return sqs;
    },
    async start(options = {}) {
      const started = await startLaneRig({ sqs, tableName, producerDynamoDb: ddb, ...options });
      rigs.push(started);
      return started;
    },
  };
}
