import { randomUUID } from "node:crypto";
import { DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoDBProcessVersionsReader } from "../../shared/catalogue/dynamodb-process-versions-reader.js";
import { DynamoDBConnectionStore } from "../../shared/connections/dynamodb-connection-store.js";
import { DynamoDBProcessStore } from "../../shared/processes/dynamodb-process-store.js";
import { DynamoDBRequestStore } from "../../shared/processes/dynamodb-request-store.js";
import { newProcess } from "../../shared/processes/process.js";
import { createTableIfMissing } from "../../infra/local/dynamodb-table.js";
import { testDynamoDbClient } from "../support/aws-clients.js";

/**
 * A lane turn's one read (issue 31): the process, its level versions, the request's record and
 * the process's subscription marker in one BatchGetItem. The marker is what lets the lane skip
 * the subscribers query; it must never say "nobody" while a subscription lives.
 */

const T = "acme";
let client: DynamoDBClient;
let tableName: string;
let processes: DynamoDBProcessStore;
let requests: DynamoDBRequestStore;

beforeAll(async () => {
  client = testDynamoDbClient();
  tableName = `skills-turn-read-${randomUUID().slice(0, 8)}`;
  await createTableIfMissing(client, tableName);
  processes = new DynamoDBProcessStore(client, tableName);
  requests = new DynamoDBRequestStore(client, tableName);
});

afterAll(async () => {
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  client.destroy();
});

async function aProcess(): Promise<string> {
  const processId = `p-${randomUUID()}`;
  await processes.create(
    newProcess({
      tenant: T,
      processId,
      sessionId: `s-${randomUUID()}`,
      name: "chat",
      recipe: "default",
      engine: "ford",
      projectId: "proj",
    }),
  );
  return processId;
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

describe("a lane turn's one read", () => {
  it("carries the request's record, and says nobody is subscribed to a process nobody subscribed to", async () => {
    // Prepare
    const processId = await aProcess();
    await requests.putQueued(T, processId, "r1", "turn.compose", "fp");
    const reader = new DynamoDBProcessVersionsReader(client, tableName);

    // Act
    const read = await reader.read(T, processId, ["proj"], { requestId: "r1" });
    const unknownRequest = await reader.read(T, processId, ["proj"], { requestId: "nope" });
    const withoutRequest = await reader.read(T, processId, ["proj"]);

    // Assess
    expect(read.process?.processId).toBe(processId);
    expect(read.request).toEqual({ record: { requestId: "r1", processId, kind: "turn.compose", status: "QUEUED", fingerprint: "fp" } });
    expect(read.mayHaveSubscribers).toBe(false);
    expect(unknownRequest.request).toEqual({ record: undefined });
    expect(withoutRequest).not.toHaveProperty("request");
    expect(withoutRequest).not.toHaveProperty("mayHaveSubscribers");
  });

  it("says someone may be subscribed from the moment a subscribe returns until the longest subscription has expired", async () => {
    // Prepare
    const processId = await aProcess();
    const connections = new DynamoDBConnectionStore(client, tableName);
    const long = nowSeconds() + 3600;
    const short = nowSeconds() + 60;

    // Act
    await connections.subscribe(T, "c-long", processId, { notAfter: long });
    await connections.subscribe(T, "c-short", processId, { notAfter: short });
    const reader = (atMs: number) => new DynamoDBProcessVersionsReader(client, tableName, { now: () => atMs });
    const now = await reader(Date.now()).read(T, processId, [], { requestId: "r" });
    const afterShort = await reader((short + 1) * 1000).read(T, processId, [], { requestId: "r" });
    const afterLong = await reader((long + 1) * 1000).read(T, processId, [], { requestId: "r" });

    // Assess: a shorter subscription after a longer one does not shorten the marker
    expect(await connections.subscribers(T, processId)).toEqual(expect.arrayContaining(["c-long", "c-short"]));
    expect(now.mayHaveSubscribers).toBe(true);
    expect(afterShort.mayHaveSubscribers).toBe(true);
    expect(afterLong.mayHaveSubscribers).toBe(false);
  });

  it("the marker is no subscriber: the fan-out's query still lists only connections", async () => {
    // Prepare
    const processId = await aProcess();
    const connections = new DynamoDBConnectionStore(client, tableName);

    // Act
    await connections.subscribe(T, "c1", processId);

    // Assess
    expect(await connections.subscribers(T, processId)).toEqual(["c1"]);
  });
});
