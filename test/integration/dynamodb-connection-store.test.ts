import { randomUUID } from "node:crypto";
import { DeleteTableCommand, GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TABLE_TTL_ATTRIBUTE } from "../../shared/aws/table-schema.js";
import { parseIdentity } from "../../shared/auth/identity.js";
import { CONNECTION_TTL_SECONDS } from "../../shared/connections/connection-store.js";
import { connectionItemKey, connectionSubscriptionKey, processSubscriberKey } from "../../shared/connections/dynamodb-connection-keys.js";
import type { TableKey } from "../../shared/aws/dynamodb-keys.js";
import { DynamoDBConnectionStore } from "../../shared/connections/dynamodb-connection-store.js";
import { createTableIfMissing } from "../../infra/local/dynamodb-table.js";
import { testDynamoDbClient } from "../support/aws-clients.js";

const ALICE = parseIdentity({ login: "alice", tenant: "acme", projects: ["proj1", "proj2"], roles: ["project-admin:proj1"] });
const MALLORY = parseIdentity({ login: "mallory", tenant: "evil", projects: [], roles: ["tenant-admin"] });

let client: DynamoDBClient;
let tableName: string;
let store: DynamoDBConnectionStore;

beforeAll(async () => {
  client = testDynamoDbClient();
  tableName = `skills-connections-${randomUUID().slice(0, 8)}`;
  await createTableIfMissing(client, tableName);
  store = new DynamoDBConnectionStore(client, tableName);
});

afterAll(async () => {
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  client.destroy();
});

const id = (label: string): string => `${label}-${randomUUID().slice(0, 8)}`;

const rawItem = async (key: TableKey) => {
  const out = await client.send(
    new GetItemCommand({ TableName: tableName, Key: { pk: { S: key.pk }, sk: { S: key.sk } }, ConsistentRead: true }),
  );
  return out.Item;
};

describe("DynamoDBConnectionStore", () => {
  it("puts and gets a connection with its identity snapshot and a TTL attribute past two hours", async () => {
    // Prepare
    const connectionId = id("c");
    const before = Math.floor(Date.now() / 1000);

    // Act
    const put = await store.put({ connectionId, identity: ALICE });
    const got = await store.get("acme", connectionId);
    const item = await rawItem(connectionItemKey("acme", connectionId));

    // Assess
    expect(got).toEqual(put);
    expect(got?.identity).toEqual({ login: "alice", tenant: "acme", projects: ["proj1", "proj2"], roles: ["project-admin:proj1"] });
    expect(connectionItemKey("acme", connectionId).pk).toBe(`T#acme#C#${connectionId}`);
    const expiresAt = Number(item?.[TABLE_TTL_ATTRIBUTE]?.N);
    expect(expiresAt).toBeGreaterThanOrEqual(before + CONNECTION_TTL_SECONDS);
    expect(expiresAt).toBeLessThanOrEqual(before + CONNECTION_TTL_SECONDS + 60);
    expect(expiresAt).toBeGreaterThan(before + 2 * 3600);
  });

  it("subscribes connections to processes with TTL on both items and lists subscribers by process", async () => {
    // Prepare
    const [c1, c2, p1, p2] = [id("c"), id("c"), id("p"), id("p")];
    await store.put({ connectionId: c1, identity: ALICE });
    await store.put({ connectionId: c2, identity: ALICE });

    // Act
    await store.subscribe("acme", c1, p1);
    await store.subscribe("acme", c1, p1);
    await store.subscribe("acme", c1, p2);
    await store.subscribe("acme", c2, p1);

    // Assess
    expect((await store.subscribers("acme", p1)).sort()).toEqual([c1, c2].sort());
    expect(await store.subscribers("acme", p2)).toEqual([c1]);
    expect((await store.subscriptionsOf("acme", c1)).sort()).toEqual([p1, p2].sort());
    expect((await rawItem(processSubscriberKey("acme", p1, c1)))?.[TABLE_TTL_ATTRIBUTE]?.N).toBeDefined();
    expect((await rawItem(connectionSubscriptionKey("acme", c1, p1)))?.[TABLE_TTL_ATTRIBUTE]?.N).toBeDefined();
  });

  it("removes a connection with every one of its subscriptions, more than one batch of them", async () => {
    // Prepare
    const [c1, c2] = [id("c"), id("c")];
    const processes = Array.from({ length: 30 }, () => id("p"));
    await store.put({ connectionId: c1, identity: ALICE });
    await store.put({ connectionId: c2, identity: ALICE });
    for (const p of processes) await store.subscribe("acme", c1, p);
    await store.subscribe("acme", c2, processes[0]!);

    // Act
    await store.remove("acme", c1);

    // Assess
    expect(await store.get("acme", c1)).toBeUndefined();
    expect(await store.subscriptionsOf("acme", c1)).toEqual([]);
    for (const p of processes.slice(1)) expect(await store.subscribers("acme", p)).toEqual([]);
    expect(await store.subscribers("acme", processes[0]!)).toEqual([c2]);
    expect(await rawItem(processSubscriberKey("acme", processes[5]!, c1))).toBeUndefined();
    expect(await store.get("acme", c2)).toBeDefined();
  });

  it("removing an unknown connection is a no-op", async () => {
    // Act
    const removing = store.remove("acme", id("never"));

    // Assess
    await expect(removing).resolves.toBeUndefined();
  });

  it("keeps tenants isolated even with identical connection and process ids", async () => {
    // Prepare
    const [c, p] = [id("c"), id("p")];
    await store.put({ connectionId: c, identity: ALICE });
    await store.subscribe("acme", c, p);

    // Act
    const crossGet = await store.get("evil", c);
    const crossSubscribers = await store.subscribers("evil", p);
    await store.put({ connectionId: c, identity: MALLORY });
    await store.subscribe("evil", c, p);
    await store.remove("evil", c);

    // Assess
    expect(crossGet).toBeUndefined();
    expect(crossSubscribers).toEqual([]);
    expect(await store.get("acme", c)).toMatchObject({ identity: { tenant: "acme", login: "alice" } });
    expect(await store.subscribers("acme", p)).toEqual([c]);
    expect(await store.subscribers("evil", p)).toEqual([]);
  });

  it("encodes key parts, so a crafted id cannot address another tenant's or process's items", async () => {
    // Prepare
    const p = id("p");
    const crafted = `x#PS#${p}`;

    // Act
    await store.put({ connectionId: crafted, identity: ALICE });
    await store.subscribe("acme", crafted, p);

    // Assess
    expect(connectionItemKey("acme", crafted).pk).toBe(`T#acme#C#x%23PS%23${p}`);
    expect(await store.subscribers("acme", p)).toEqual([crafted]);
  });

  it("skips items past their expiry that DynamoDB has not deleted yet", async () => {
    // Prepare
    const [c, p] = [id("c"), id("p")];
    const past = Math.floor(Date.now() / 1000) - 10;
    const connectionKey = connectionItemKey("acme", c);
    const subscriberKey = processSubscriberKey("acme", p, c);
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          pk: { S: connectionKey.pk },
          sk: { S: connectionKey.sk },
          connectedAt: { S: "2025-01-01T00:00:00.000Z" },
          identity: { M: { login: { S: "alice" }, tenant: { S: "acme" }, projects: { L: [] }, roles: { L: [] } } },
          [TABLE_TTL_ATTRIBUTE]: { N: String(past) },
        },
      }),
    );
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          pk: { S: subscriberKey.pk },
          sk: { S: subscriberKey.sk },
          connectionId: { S: c },
          processId: { S: p },
          [TABLE_TTL_ATTRIBUTE]: { N: String(past) },
        },
      }),
    );

    // Act
    const got = await store.get("acme", c);
    const subscribers = await store.subscribers("acme", p);

    // Assess
    expect(got).toBeUndefined();
    expect(subscribers).toEqual([]);
  });
});
