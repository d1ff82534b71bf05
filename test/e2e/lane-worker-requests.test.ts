import { AsyncLocalStorage } from "node:async_hooks";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { S3Client } from "@aws-sdk/client-s3";
import { SQSClient } from "@aws-sdk/client-sqs";
import type { Context, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getDefaultSandboxPool } from "../../shared/sandbox/sandbox-pool.js";
import { ApiClient, skillMd } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * What a composed turn costs in the lane-worker function as deployed: functions/lane-worker/handler.ts
 * itself (its own module wiring: Powertools observability, activation metrics, WebSocket events,
 * guards), on the local stack against the emulators. Every AWS request a client sends while the
 * handler runs is recorded; the rest of the stack (HTTP functions, poller) is not counted.
 */

const TENANT = "costs";
const PROJECT = "work";
const WAIT = 15;

type WorkerHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

interface Sent {
  operation: string;
  /** The item the request addresses: `process`, `request`, `version`, … from its key's shape. */
  items: string[];
}

const inWorker = new AsyncLocalStorage<Sent[]>();
let stack: LocalStack;
let api: ApiClient;

const keysOf = (input: Record<string, unknown>): { pk?: unknown; sk?: unknown }[] => {
  const keys: { pk?: unknown; sk?: unknown }[] = [];
  const attr = (value: unknown): unknown => (value && typeof value === "object" && "S" in value ? (value as { S: unknown }).S : value);
  const add = (key: unknown): void => {
    if (key && typeof key === "object") keys.push({ pk: attr((key as { pk?: unknown }).pk), sk: attr((key as { sk?: unknown }).sk) });
  };
  add(input.Key);
  add(input.Item);
  const values = input.ExpressionAttributeValues as Record<string, unknown> | undefined;
  if (values?.[":pk"] !== undefined) add({ pk: values[":pk"] });
  for (const table of Object.values((input.RequestItems ?? {}) as Record<string, { Keys?: unknown[] }>))
    for (const key of table.Keys ?? []) add(key);
  return keys;
};

/** A key's kind from its shape (shared/aws/dynamodb-keys.ts): the sort key names it. */
const kindOf = (key: { pk?: unknown; sk?: unknown }): string => {
  const sk = String(key.sk ?? "");
  if (sk === "PROCESS") return "process";
  if (sk === "REQUEST") return "request";
  if (/#PS#/.test(String(key.pk))) return "subscribers";
  return sk.split("#")[0]!.toLowerCase() || String(key.pk ?? "?");
};

/** lib-dynamodb's commands (GetCommand, …) are the wire's GetItem, …; the others are named as sent. */
const DOCUMENT_OPERATIONS: Record<string, string> = {
  Get: "GetItem",
  Put: "PutItem",
  Update: "UpdateItem",
  Delete: "DeleteItem",
  BatchGet: "BatchGetItem",
  BatchWrite: "BatchWriteItem",
  TransactWrite: "TransactWriteItems",
};
const operationOf = (commandName: string): string => {
  const name = commandName.replace(/Command$/, "");
  return DOCUMENT_OPERATIONS[name] ?? name;
};

function record(service: string, client: { send: (...args: never[]) => Promise<unknown> }): void {
  const send = client.send;
  vi.spyOn(client, "send").mockImplementation(function (this: unknown, ...args: unknown[]) {
    const sent = inWorker.getStore();
    const command = args[0] as { constructor: { name: string }; input: Record<string, unknown> };
    if (sent)
      sent.push({ operation: `${service}.${operationOf(command.constructor.name)}`, items: keysOf(command.input ?? {}).map(kindOf) });
    return (send as (...a: unknown[]) => Promise<unknown>).apply(this, args);
  } as never);
}

const sent: Sent[] = [];
const laneWorker = (async (): Promise<WorkerHandler> =>
  ((await import("../../functions/lane-worker/handler.js")) as { handler: WorkerHandler }).handler)();

beforeAll(async () => {
  process.env.POWERTOOLS_LOG_LEVEL = "SILENT";
  // The stores send through lib-dynamodb's document client, which runs its own middleware stack.
  record("DynamoDB", DynamoDBClient.prototype);
  record("DynamoDB", DynamoDBDocumentClient.prototype);
  record("S3", S3Client.prototype);
  record("SQS", SQSClient.prototype);
  stack = await startLocalStack({
    handlers: {
      "lane-worker": async (event, context) => inWorker.run(sent, async () => (await laneWorker)(event as SQSEvent, context as Context)),
    },
    s3Events: false,
  });
  api = new ApiClient(stack.httpUrl, await stack.token({ tenant: TENANT, login: "ada", projects: [PROJECT], roles: ["tenant-admin"] }));
  const saved = await api.putDocument(
    TENANT,
    "_tenant",
    "_vance/skills/reviewer/SKILL.md",
    skillMd(
      "title: Reviewer\ndescription: Reviews code\nversion: 1.0.0\ntriggers:\n  - type: KEYWORDS\n    keywords: [review]",
      "Review carefully.",
    ),
  );
  expect(saved.status, saved.text).toBe(200);
});

afterAll(async () => {
  vi.restoreAllMocks();
  await stack?.close();
  await getDefaultSandboxPool().close();
});

/** The requests the lane worker sent while applying `act`'s request. */
async function requestsOf(act: () => Promise<{ status: number; text: string }>): Promise<Sent[]> {
  sent.length = 0;
  const reply = await act();
  expect(reply.status, reply.text.slice(0, 300)).toBe(200);
  return sent.map((s) => ({ ...s }));
}

describe("the deployed lane worker's AWS requests per composed turn", () => {
  it("steady state: the turn reads its process, level versions, request and subscription marker in one BatchGetItem and writes the process once; no S3", async () => {
    // Prepare: a process and a first turn (it fills the container's catalogue: cold, not steady)
    const spawned = await api.spawn(TENANT, "steady", { recipe: "default", projectId: PROJECT });
    expect(spawned.status, spawned.text).toBe(201);
    const processId = spawned.json.processId;
    await requestsOf(() => api.compose(TENANT, processId, { message: "first" }, WAIT));

    // Act
    const steady = await requestsOf(() => api.compose(TENANT, processId, { message: "second" }, WAIT));

    // Assess: the turn's own state is two requests; the one read also carries the request's
    // record and the process's subscription marker (issue 31), so the request costs only its
    // completion, and nobody subscribed means no subscribers query.
    const onProcess = steady.filter((s) => s.items.includes("process"));
    expect(onProcess.map((s) => s.operation)).toEqual(["DynamoDB.BatchGetItem", "DynamoDB.PutItem"]);
    expect(onProcess[0]!.items).toEqual(expect.arrayContaining(["process", "request", "subscribers"]));
    expect(steady.filter((s) => s.operation.startsWith("S3."))).toEqual([]);
    const rest = steady.filter((s) => !s.items.includes("process")).map((s) => `${s.operation} ${s.items.join(",")}`);
    expect(rest).toEqual(["DynamoDB.UpdateItem request"]);
  });

  it("a turn whose message triggers a skill activates it with the same two process requests (metrics read nothing)", async () => {
    // Prepare
    const spawned = await api.spawn(TENANT, "trigger", { recipe: "default", projectId: PROJECT });
    const processId = spawned.json.processId;
    await requestsOf(() => api.compose(TENANT, processId, { message: "warm up" }, WAIT));

    // Act
    const triggered = await requestsOf(() => api.compose(TENANT, processId, { message: "please review this" }, WAIT));

    // Assess
    expect((await api.process(TENANT, processId)).json.activeSkills.map((s: { name: string }) => s.name)).toEqual(["reviewer"]);
    expect(triggered.filter((s) => s.items.includes("process")).map((s) => s.operation)).toEqual([
      "DynamoDB.BatchGetItem",
      "DynamoDB.PutItem",
    ]);
  });
});
