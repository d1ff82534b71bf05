import { randomUUID } from "node:crypto";
import type { SkillsApp } from "../shared/app/skills-app.js";
import { S3DocumentStore } from "../shared/documents/s3-document-store.js";
import type { LaneMessage } from "../shared/lanes/lane-message.js";
import { DynamoDBRequestStore } from "../shared/processes/dynamodb-request-store.js";
import { DynamoDBSkillUsageStore } from "../shared/usage/dynamodb-skill-usage-store.js";
import { USAGE_COUNTERS } from "../shared/usage/skill-usage.js";
import { AwsRequestCounter } from "../test/support/aws-request-counter.js";
import { startEmulators } from "../infra/local/local-emulators.js";
import { createLocalResources, localClients } from "../infra/local/local-resources.js";
import type { BenchRow } from "./bench-table.js";
import { shippedLaneWorker } from "./shipped-lane-worker.js";

const TENANT = "usage";
const PROJECT = "demo";
const USER = { login: "bench" };
const TURNS = 10;

/**
 * Issue 17: the usage counter's cost on a turn, through the shipped lane worker (its wiring has
 * the DynamoDB usage store). A turn that activates nothing must cost what it did before (no
 * write); a turn whose trigger activates one skill adds exactly one UpdateItem (the ADD).
 */
export async function benchUsage(): Promise<BenchRow[]> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const emulators = await startEmulators({ host: "127.0.0.1" });
  const credentials = { accessKeyId: "bench", secretAccessKey: "bench" };
  const clients = localClients(emulators.endpoints, "us-east-1", credentials);
  const worker = await (async () => {
    const resources = await createLocalResources(
      clients,
      { bucketName: "usage-bench", tableName: "usage-bench", laneQueueBaseName: "usage-bench-lane" },
      { region: "us-east-1", laneVisibilityTimeoutSeconds: 30, laneMaxReceiveCount: 5 },
    );
    const documents = new S3DocumentStore({ client: clients.s3, bucket: resources.bucketName });
    await documents.put(
      TENANT,
      PROJECT,
      "_vance/skills/deploy/SKILL.md",
      "---\ndescription: Deploys.\ntriggers:\n  - type: KEYWORDS\n    keywords: [deploy]\n---\nDeploy body.\n",
    );
    await documents.put(TENANT, PROJECT, "_vance/skills/helper/SKILL.md", "---\ndescription: Helps.\n---\nHelper body.\n");
    const counter = new AwsRequestCounter();
    counter.instrument(clients.dynamodb);
    counter.instrument(clients.s3);
    return {
      counter,
      requests: new DynamoDBRequestStore(clients.dynamodb, resources.tableName),
      usage: new DynamoDBSkillUsageStore(clients.dynamodb, resources.tableName),
      shipped: shippedLaneWorker({ emulators, resources, region: "us-east-1", credentials, counter }),
    };
  })();
  try {
    const app: SkillsApp = worker.shipped.app;
    const turn = async (processId: string, text: string): Promise<Record<string, number>> => {
      const message: LaneMessage = {
        requestId: randomUUID(),
        processId,
        tenant: TENANT,
        user: USER,
        kind: "turn.compose",
        payload: { turnId: randomUUID(), message: text },
        enqueuedAt: new Date().toISOString(),
      };
      await worker.requests.putQueued(TENANT, processId, message.requestId, message.kind);
      worker.counter.reset();
      await app.applyLaneMessage(message, { messageId: message.requestId, groupId: undefined, receiveCount: 1 });
      return worker.counter.snapshot();
    };
    const spawn = async (): Promise<string> =>
      (await app.spawn(TENANT, USER, { sessionId: `s-${randomUUID()}`, recipe: "default", projectId: PROJECT })).processId;
    const quietProcess = await spawn();
    await turn(quietProcess, "warm up"); // fills the catalogue
    const quiet: Record<string, number> = {};
    const activating: Record<string, number> = {};
    const add = (into: Record<string, number>, from: Record<string, number>): void => {
      for (const [op, n] of Object.entries(from)) into[op] = (into[op] ?? 0) + n;
    };
    // What the counters themselves say, read back from the table: the sum of every counter of the project today.
    const counted = async (): Promise<number> =>
      (await worker.usage.read({ tenant: TENANT, projectId: PROJECT, days: 1, viewer: USER.login, now: new Date() })).usage.reduce(
        (sum, row) => sum + USAGE_COUNTERS.reduce((n, c) => n + row[c], 0),
        0,
      );
    const beforeQuiet = await counted();
    for (let i = 0; i < TURNS; i++) add(quiet, await turn(quietProcess, "nothing to trigger here"));
    const quietCounted = (await counted()) - beforeQuiet;
    // A fresh process per activating turn: a trigger activation is one-shot and stays until completion.
    let activatingCounted = 0;
    for (let i = 0; i < TURNS; i++) {
      const processId = await spawn();
      await turn(processId, "warm up");
      const before = await counted();
      add(activating, await turn(processId, "please deploy"));
      activatingCounted += (await counted()) - before;
    }
    const per = (ops: Record<string, number>, op: string): number => (ops[`DynamoDB.${op}`] ?? 0) / TURNS;
    const dynamo = (ops: Record<string, number>): number =>
      Object.entries(ops).reduce((s, [op, n]) => (op.startsWith("DynamoDB.") ? s + n : s), 0) / TURNS;
    const breakdown = (ops: Record<string, number>): string =>
      Object.entries(ops)
        .map(([op, n]) => `${op.replace(/^(DynamoDB|S3)\./, "")} ${+(n / TURNS).toFixed(1)}`)
        .join(", ");
    return [
      {
        metric: "turn_lane_apply_updateitem_quiet_turn",
        ours: per(quiet, "UpdateItem"),
        baseline: null,
        unit: "req",
        note: `goal 1: the request record's completion only, no usage counter; lane apply: ${breakdown(quiet)}`,
      },
      {
        metric: "turn_lane_apply_updateitem_one_trigger_turn",
        ours: per(activating, "UpdateItem"),
        baseline: per(quiet, "UpdateItem"),
        unit: "req",
        note: `baseline = the quiet turn; +1 = the one ADD of the trigger activation; lane apply: ${breakdown(activating)}`,
      },
      {
        metric: "turn_lane_apply_dynamodb_requests_quiet_with_usage",
        ours: dynamo(quiet),
        baseline: null,
        unit: "req",
        note: "the shipped lane worker, usage store wired",
      },
      {
        metric: "usage_counts_written_per_quiet_turn",
        ours: quietCounted / TURNS,
        baseline: null,
        unit: "count",
        note: "goal 0: the counters read back from the table after the quiet turns",
      },
      {
        metric: "usage_counts_written_per_one_trigger_turn",
        ours: activatingCounted / TURNS,
        baseline: null,
        unit: "count",
        note: "goal 1: the trigger activation's count, read back from the table",
      },
    ];
  } finally {
    worker.shipped.restore();
    clients.destroy();
    await emulators.stop();
  }
}
