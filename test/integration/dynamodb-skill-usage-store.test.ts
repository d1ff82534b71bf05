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

/** 16 writes in flight: enough to fill the table quickly without starving the emulator. */
async function writeInBatches(writes: (() => Promise<void>)[]): Promise<void> {
  for (let i = 0; i < writes.length; i += 16) await Promise.all(writes.slice(i, i + 16).map((write) => write()));
}

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
    await store.count({ ...base, name: "review", source: "VANCE", counter: "explicit", at: new Date("2025-05-20T10:00:00Z") });
    const { usage: all, truncated } = await store.read({ tenant: "acme", projectId: "p1", days: 30, viewer: "alice", now: at });
    const { usage: recent } = await store.read({ tenant: "acme", projectId: "p1", days: 3, viewer: "alice", now: at });
    const { usage: named } = await store.read({ tenant: "acme", projectId: "p1", days: 30, name: "review", viewer: "alice", now: at });

    // Assess
    expect(all).toEqual([
      {
        name: "deploy",
        source: "PROJECT",
        day: "2025-06-02",
        explicit: 0,
        trigger: 5,
        model: 0,
        recipe: 0,
        spawn: 0,
        refused: 4,
        refusedCodes: { OTHER: 1, SKILL_LOCKED: 1, SKILL_NOT_ALLOWED: 2 },
      },
      {
        name: "review",
        source: "VANCE",
        day: "2025-05-20",
        explicit: 1,
        trigger: 0,
        model: 0,
        recipe: 0,
        spawn: 0,
        refused: 0,
        refusedCodes: {},
      },
    ]);
    expect(truncated).toBe(false);
    expect(recent.map((r) => r.name)).toEqual(["deploy"]);
    expect(named.map((r) => r.name)).toEqual(["review"]);
  });

  it("keeps each member's USER skills and refusals of unknown level in rows of their own that only that member reads; PROJECT rows are everyone's", async () => {
    // Prepare
    const store = new DynamoDBSkillUsageStore(client, tableName);
    const at = new Date("2025-06-02T10:00:00Z");
    const base = { tenant: "acme", projectId: "p3", at };

    // Act
    await store.count({ ...base, name: "notes", source: "USER", owner: "alice", counter: "explicit" });
    await store.count({ ...base, name: "notes", source: "USER", owner: "bob", counter: "explicit" });
    await store.count({ ...base, name: "notes", source: "USER", owner: "bob", counter: "model" });
    await store.count({ ...base, name: "bob-secret", source: "USER", owner: "bob", counter: "trigger" });
    await store.count({ ...base, name: "shared", source: "PROJECT", counter: "trigger" });
    await store.count({ ...base, name: "asked-by-bob", source: null, owner: "bob", counter: "refused", code: "SKILL_NOT_ALLOWED" });
    const asAlice = await store.read({ tenant: "acme", projectId: "p3", days: 1, viewer: "alice", now: at });
    const asBob = await store.read({ tenant: "acme", projectId: "p3", days: 1, viewer: "bob", now: at });
    const asCarol = await store.read({ tenant: "acme", projectId: "p3", days: 1, name: "notes", viewer: "carol", now: at });

    // Assess
    expect(asAlice.usage.map((r) => [r.name, r.source, r.explicit, r.model, r.trigger])).toEqual([
      ["notes", "USER", 1, 0, 0],
      ["shared", "PROJECT", 0, 0, 1],
    ]);
    expect(asBob.usage.map((r) => [r.name, r.source, r.explicit, r.model, r.trigger])).toEqual([
      ["asked-by-bob", null, 0, 0, 0],
      ["bob-secret", "USER", 0, 0, 1],
      ["notes", "USER", 1, 1, 0],
      ["shared", "PROJECT", 0, 0, 1],
    ]);
    expect(asCarol.usage).toEqual([]);
  });

  it("cuts an answer at its row cap between days, keeping the newest whole days, and says so", async () => {
    // Prepare
    const maxRows = 40;
    const store = new DynamoDBSkillUsageStore(client, tableName, maxRows);
    const now = new Date("2025-06-30T10:00:00Z");
    const days = 3;
    const perDay = maxRows / 2 + 5;
    const writes = Array.from({ length: days * perDay }, (_, i) => ({
      tenant: "acme",
      projectId: "p-many",
      name: `s${String(i % perDay).padStart(5, "0")}`,
      source: "PROJECT" as const,
      counter: "explicit" as const,
      at: new Date(now.getTime() - Math.floor(i / perDay) * 86_400_000),
    }));
    await writeInBatches(writes.map((event) => () => store.count(event)));

    // Act
    const answer = await store.read({ tenant: "acme", projectId: "p-many", days, viewer: "alice", now });

    // Assess
    expect(answer.truncated).toBe(true);
    expect(answer.usage).toHaveLength(perDay);
    expect(new Set(answer.usage.map((r) => r.day))).toEqual(new Set(["2025-06-30"]));
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
