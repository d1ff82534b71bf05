import { randomUUID } from "node:crypto";
import { DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTableIfMissing } from "../../infra/local/dynamodb-table.js";
import { DynamoDBWaitSlots } from "../../shared/processes/dynamodb-wait-slots.js";
import { testDynamoDbClient } from "../support/aws-clients.js";

let client: DynamoDBClient;
let tableName: string;

beforeAll(async () => {
  client = testDynamoDbClient();
  tableName = `skills-waits-${randomUUID().slice(0, 8)}`;
  await createTableIfMissing(client, tableName);
});

afterAll(async () => {
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  client.destroy();
});

describe("DynamoDBWaitSlots: concurrent waits per identity, across instances", () => {
  it("gives out at most `limit` slots to one identity however many instances ask at once, and none of another's", async () => {
    // Prepare: three "instances" (stores) over one table
    const instances = [0, 1, 2].map(() => new DynamoDBWaitSlots(client, tableName, 3));

    // Act
    const taken = await Promise.all(Array.from({ length: 9 }, (_, i) => instances[i % 3]!.acquire("acme", "mallory", 20_000)));
    const other = await instances[0]!.acquire("acme", "alice", 20_000);

    // Assess
    expect(taken.filter((r) => r !== undefined)).toHaveLength(3);
    expect(other).toBeDefined();
  });

  it("frees a slot when its holder gives it back", async () => {
    // Prepare
    const slots = new DynamoDBWaitSlots(client, tableName, 1);
    const release = await slots.acquire("acme", "bob", 20_000);

    // Act
    const whileHeld = await slots.acquire("acme", "bob", 20_000);
    await release!();
    const afterRelease = await slots.acquire("acme", "bob", 20_000);

    // Assess
    expect(whileHeld).toBeUndefined();
    expect(afterRelease).toBeDefined();
  });

  it("lets a slot whose holder crashed be taken once its lease ran out; the late release takes nothing back", async () => {
    // Prepare
    let now = 1_000_000;
    const slots = new DynamoDBWaitSlots(client, tableName, 1, () => now);
    const crashed = await slots.acquire("acme", "carol", 5_000);

    // Act
    now += 4_000;
    const early = await slots.acquire("acme", "carol", 5_000);
    now += 2_000;
    const late = await slots.acquire("acme", "carol", 5_000);
    await crashed!();
    const stillHeld = await slots.acquire("acme", "carol", 5_000);

    // Assess
    expect(early).toBeUndefined();
    expect(late).toBeDefined();
    expect(stillHeld).toBeUndefined();
  });
});

describe("DynamoDBWaitSlots partitions: spawn slots and wait slots are counted apart", () => {
  it("lets an identity holding every wait slot still take a spawn slot", async () => {
    // Prepare
    const waits = new DynamoDBWaitSlots(client, tableName, 1);
    const spawns = new DynamoDBWaitSlots(client, tableName, 1, Date.now, "S");
    const held = await waits.acquire("acme", "carol", 20_000);

    // Act
    const spawn = await spawns.acquire("acme", "carol", 20_000);
    const secondSpawn = await spawns.acquire("acme", "carol", 20_000);

    // Assess
    expect(held).toBeDefined();
    expect(spawn).toBeDefined();
    expect(secondSpawn).toBeUndefined();
  });
});
