import type { SkillsApp } from "../shared/app/skills-app.js";
import type { LaneMessage } from "../shared/lanes/lane-message.js";
import type { LaneWorkerHandler } from "../shared/lanes/lane-worker.js";
import { shippedLaneWorker } from "./shipped-lane-worker.js";
import { SqsLanePoller } from "../infra/local/sqs-lane-poller.js";
import { AwsRequestCounter } from "../test/support/aws-request-counter.js";
import { startEmulators } from "../infra/local/local-emulators.js";
import { createLocalResources, localClients } from "../infra/local/local-resources.js";
import { repeated, type BenchRow } from "./bench-table.js";

const TENANT = "bench";
const PROJECT = "demo";
const USER = { login: "bench" };
/** A run applies 100-200 activations at 20-60/s on a loaded machine: 3 runs, not REPETITIONS. */
const LANE_RUNS = 3;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

interface LaneRig {
  app: SkillsApp;
  counter: AwsRequestCounter;
  applied: LaneMessage[];
  stop(): Promise<void>;
}

async function laneRig(): Promise<LaneRig> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const emulators = await startEmulators({ host: "127.0.0.1" });
  const clients = localClients(emulators.endpoints, "us-east-1", { accessKeyId: "bench", secretAccessKey: "bench" });
  const resources = await createLocalResources(
    clients,
    { bucketName: "bench-documents", tableName: "bench-table", laneQueueBaseName: "bench-lane" },
    { region: "us-east-1", laneVisibilityTimeoutSeconds: 30, laneMaxReceiveCount: 5 },
  );
  const counter = new AwsRequestCounter();
  counter.instrument(clients.sqs); // the poller's receive and delete
  const worker = shippedLaneWorker({
    emulators,
    resources,
    region: "us-east-1",
    credentials: { accessKeyId: "bench", secretAccessKey: "bench" },
    counter,
  });
  const applied: LaneMessage[] = [];
  const app = worker.app;
  const handler: LaneWorkerHandler = async (event, context) => {
    const response = await worker.handler(event, context);
    const failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    for (const record of event.Records) if (!failed.has(record.messageId)) applied.push(JSON.parse(record.body) as LaneMessage);
    return response;
  };
  const poller = new SqsLanePoller({
    sqs: clients.sqs,
    queueUrl: resources.laneQueueUrl,
    handler,
    concurrency: 4,
    // fauxqs wakes long polls only on new sends, not when a FIFO group unlocks after a delete,
    // so long polling would add up to a second per message of a busy group (SQS does not).
    waitTimeSeconds: 0,
    logger: silent,
  });
  poller.start();
  return {
    app,
    counter,
    applied,
    stop: async () => {
      await poller.stop();
      worker.restore();
      clients.destroy();
      await emulators.stop();
    },
  };
}

/** Same-process order check: every process's applied requests must come in the order they were enqueued. */
function orderViolations(enqueued: ReadonlyMap<string, string[]>, applied: readonly LaneMessage[]): number {
  const seen = new Map<string, string[]>();
  // A redelivered message is recorded again when its batch is answered (the applier skips it):
  // its first application is the one that took its place in the lane.
  const recorded = new Set<string>();
  for (const message of applied) {
    if (recorded.has(message.requestId)) continue;
    recorded.add(message.requestId);
    const list = seen.get(message.processId) ?? [];
    list.push(message.requestId);
    seen.set(message.processId, list);
  }
  let violations = 0;
  for (const [processId, expected] of enqueued) {
    const actual = (seen.get(processId) ?? []).filter((id) => expected.includes(id));
    expected.forEach((id, i) => {
      if (actual[i] !== id) violations += 1;
    });
  }
  return violations;
}

/** `processes` fresh processes of one session. */
async function spawnMany(rig: LaneRig, processes: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < processes; i++) {
    const p = await rig.app.spawn(TENANT, USER, { sessionId: `tp-${processes}`, recipe: "default", projectId: PROJECT, name: `p${i}` });
    ids.push(p.processId);
  }
  return ids;
}

async function throughput(
  rig: LaneRig,
  ids: readonly string[],
  activations: number,
  run: number,
): Promise<{ perSecond: number; violations: number }> {
  const processes = ids.length;
  rig.applied.length = 0;
  const enqueued = new Map<string, string[]>();
  const started = performance.now();
  // Each process's requests are enqueued one after the other (so its lane order is known); the
  // processes themselves enqueue concurrently.
  const perProcess = Math.ceil(activations / processes);
  const requests = await Promise.all(
    ids.map(async (processId, p) => {
      const accepted: { requestId: string }[] = [];
      for (let i = 0; i < perProcess; i++) {
        const requestId = `tp${processes}-${run}-${p}-${i}`;
        enqueued.set(processId, [...(enqueued.get(processId) ?? []), requestId]);
        accepted.push(
          await rig.app.steerSkill(TENANT, processId, USER, {
            command: i % 2 ? "CLEAR" : "ACTIVATE",
            skillName: "typescript-style",
            requestId,
          }),
        );
      }
      return accepted;
    }),
  );
  await Promise.all(requests.flatMap((accepted, p) => accepted.map((r) => rig.app.waitForRequest(TENANT, ids[p]!, r.requestId, 120_000))));
  const seconds = (performance.now() - started) / 1000;
  // A request reads as settled once its state is written, before the worker has answered its
  // batch and the rig has recorded it: wait for the records, so the last batch is not counted missing.
  const total = requests.flat().length;
  const recordedBy = performance.now() + 10_000;
  while (new Set(rig.applied.map((message) => message.requestId)).size < total && performance.now() < recordedBy)
    await new Promise((resolve) => setTimeout(resolve, 10));
  return { perSecond: requests.flat().length / seconds, violations: orderViolations(enqueued, rig.applied) };
}

/**
 * Lane throughput and AWS requests per operation through the real lane (SQS FIFO on fauxqs,
 * process state on dynalite, documents on fauxqs S3) with the real worker and poller.
 */
export async function benchLanes(): Promise<BenchRow[]> {
  const rig = await laneRig();
  try {
    const rows: BenchRow[] = [];
    let violations = 0;
    for (const processes of [1, 10, 100]) {
      const ids = await spawnMany(rig, processes);
      // Two per process at 100 processes, so each ends where it began (ACTIVATE, CLEAR).
      const activations = processes === 100 ? 200 : 100;
      const runs: number[] = [];
      for (let r = 0; r < LANE_RUNS; r++) {
        const result = await throughput(rig, ids, activations, r);
        violations += result.violations;
        runs.push(result.perSecond);
      }
      rows.push({
        metric: `lane_activations_per_s_${processes}`,
        ...repeated(runs),
        baseline: null,
        unit: "1/s",
        note: `${processes} process(es), emulators; ${LANE_RUNS} runs of ${activations} activations`,
      });
    }
    rows.push({
      metric: "lane_order_violations",
      ours: violations,
      baseline: null,
      unit: "count",
      note: "applied vs enqueued order per process",
    });

    // Requests per activation: one process, activations applied one after the other.
    const p = await rig.app.spawn(TENANT, USER, { sessionId: "count", recipe: "default", projectId: PROJECT, name: "counted" });
    const n = 20;
    rig.counter.reset();
    for (let i = 0; i < n; i++) {
      const accepted = await rig.app.steerSkill(TENANT, p.processId, USER, {
        command: i % 2 ? "CLEAR" : "ACTIVATE",
        skillName: "code-review",
      });
      await rig.app.waitForRequest(TENANT, p.processId, accepted.requestId, 30_000);
    }
    const perActivation = (service: string) => rig.counter.total(service) / n;
    rows.push(
      {
        metric: "activate_dynamodb_requests",
        ours: perActivation("DynamoDB"),
        baseline: null,
        unit: "req",
        note: "incl. caller's wait polling",
      },
      {
        metric: "activate_sqs_requests",
        ours: perActivation("SQS"),
        baseline: null,
        unit: "req",
        note: "send + receive + delete, amortized",
      },
      { metric: "activate_s3_requests", ours: perActivation("S3"), baseline: null, unit: "req" },
    );

    // Requests per composed turn, steady state: two active skills, a fresh message each turn.
    for (const skillName of ["code-review", "typescript-style"]) {
      const accepted = await rig.app.steerSkill(TENANT, p.processId, USER, { command: "ACTIVATE", skillName });
      await rig.app.waitForRequest(TENANT, p.processId, accepted.requestId, 30_000);
    }
    rig.counter.reset();
    for (let i = 0; i < n; i++) {
      const accepted = await rig.app.composeTurn(TENANT, p.processId, USER, { message: `turn ${i}: please look at the build` });
      await rig.app.waitForRequest(TENANT, p.processId, accepted.requestId, 30_000);
    }
    const perTurn = (service: string) => rig.counter.total(service) / n;
    rows.push(
      {
        metric: "turn_dynamodb_requests",
        ours: perTurn("DynamoDB"),
        baseline: null,
        unit: "req",
        note: "2 active, warm catalogue, incl. caller's wait polling",
      },
      { metric: "turn_s3_requests", ours: perTurn("S3"), baseline: null, unit: "req" },
      { metric: "turn_sqs_requests", ours: perTurn("SQS"), baseline: null, unit: "req" },
    );
    return rows;
  } finally {
    await rig.stop();
  }
}
