import { randomUUID } from "node:crypto";
import { DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTableIfMissing } from "../../infra/local/dynamodb-table.js";
import { documentClientOf } from "../../shared/aws/dynamodb-client.js";
import { DynamoDBSkillUsageStore, usageItemKey } from "../../shared/usage/dynamodb-skill-usage-store.js";
import { testDynamoDbClient } from "../support/aws-clients.js";

let client: DynamoDBClient;
let tableName: string;

beforeAll(async () => {
  client = testDynamoDbClient();
  tableName = `skills-usage-${randomUUID().slice(0, 8)}`;
  await createTableIfMissing(client, tableName);
});

afterAll(async () => {
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  client.destroy();
});

describe("DynamoDBSkillUsageStore: atomic day counters on the table", () => {
  it("adds concurrent activations (and refusals per code) into one item per skill, level and day, and reads them back by range and name", async () => {
    // Prepare
    const store = new DynamoDBSkillUsageStore(client, tableName);
    const at = new Date("2025-06-02T10:00:00Z");
    const base = { tenant: "acme", projectId: "p1", source: "PROJECT" as const, at };

    // Act
    await Promise.all(Array.from({ length: 5 }, () => store.count({ ...base, name: "deploy", counter: "trigger" })));
    await Promise.all([
      store.count({ ...base, name: "deploy", counter: "refused", code: "SKILL_NOT_ALLOWED" }),
      store.count({ ...base, name: "deploy", counter: "refused", code: "SKILL_NOT_ALLOWED" }),
      store.count({ ...base, name: "deploy", counter: "refused", code: "SKILL_LOCKED" }),
      store.count({ ...base, name: "deploy", counter: "refused", code: "not a code: #x" }),
    ]);
    await store.count({ ...base, name: "review", source: null, counter: "explicit", at: new Date("2025-05-20T10:00:00Z") });
    const all = await store.read({ tenant: "acme", projectId: "p1", days: 30, now: at });
    const recent = await store.read({ tenant: "acme", projectId: "p1", days: 3, now: at });
    const named = await store.read({ tenant: "acme", projectId: "p1", days: 30, name: "review", now: at });

    // Assess
    expect(all).toEqual([
      { name: "deploy", source: "PROJECT", day: "2025-06-02", explicit: 0, trigger: 5, model: 0, recipe: 0, spawn: 0, refused: 4, refusedCodes: { OTHER: 1, SKILL_LOCKED: 1, SKILL_NOT_ALLOWED: 2 } },
      { name: "review", source: null, day: "2025-05-20", explicit: 1, trigger: 0, model: 0, recipe: 0, spawn: 0, refused: 0, refusedCodes: {} },
    ]);
    expect(recent.map((r) => r.name)).toEqual(["deploy"]);
    expect(named.map((r) => r.name)).toEqual(["review"]);
  });

  it("gives each counter item an expiry 400 days out, in the table's TTL attribute", async () => {
    // Prepare
    const store = new DynamoDBSkillUsageStore(client, tableName);
    const at = new Date("2025-06-02T10:00:00Z");
    const event = { tenant: "acme", projectId: "p2", name: "x", source: "VANCE" as const, counter: "model" as const, at };

    // Act
    await store.count(event);
    const item = await documentClientOf(client).send(new GetCommand({ TableName: tableName, Key: usageItemKey(event) }));

    // Assess
    expect(item.Item?.expiresAt).toBe(Math.floor(at.getTime() / 1000) + 400 * 86_400);
  });
});
