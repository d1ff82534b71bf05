import { randomUUID } from "node:crypto";
import { DeleteTableCommand, DescribeTableCommand, GetItemCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tableSchema } from "../../shared/aws/table-schema.js";
import { DynamoDBProcessStore } from "../../shared/processes/dynamodb-process-store.js";
import { createTableIfMissing } from "../../infra/local/dynamodb-table.js";
import { nameClaimKey, processItemKey } from "../../shared/aws/dynamodb-keys.js";
import { newProcess } from "../../shared/processes/process.js";
import type { PendingMessage, Process } from "../../shared/processes/process.js";
import { NameTaken, ProcessNotFound } from "../../shared/processes/process-errors.js";
import { SkillLocked } from "../../shared/errors.js";
import { testDynamoDbClient } from "../support/aws-clients.js";

const T = "acme";

let client: DynamoDBClient;
let tableName: string;
let store: DynamoDBProcessStore;

beforeAll(async () => {
  client = testDynamoDbClient();
  tableName = `skills-processes-${randomUUID().slice(0, 8)}`;
  await createTableIfMissing(client, tableName);
  store = new DynamoDBProcessStore(client, tableName);
});

afterAll(async () => {
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  client.destroy();
});

/** Unique ids per test: the table is shared by the whole file. */
const aProcess = (overrides: Partial<Process> = {}): Process =>
  newProcess({
    tenant: T,
    processId: `p-${randomUUID()}`,
    sessionId: `s-${randomUUID()}`,
    name: "chat",
    recipe: "default",
    engine: "ford",
    projectId: "proj",
    ...overrides,
  });

const message = (id: string): PendingMessage => ({ id, sender: "_skill", text: `text ${id}`, kind: "action", at: new Date().toISOString() });

describe("createTableIfMissing", () => {
  it("builds the key schema from shared/aws/table-schema.ts and tolerates an existing table", async () => {
    // Act
    const again = await createTableIfMissing(client, tableName);
    const described = await client.send(new DescribeTableCommand({ TableName: tableName }));

    // Assess
    expect(again.created).toBe(false);
    expect(described.Table?.KeySchema).toEqual([
      { AttributeName: tableSchema.partitionKey.name, KeyType: "HASH" },
      { AttributeName: tableSchema.sortKey.name, KeyType: "RANGE" },
    ]);
  });
});

describe("DynamoDBProcessStore", () => {
  it("creates a process and reads it back, strongly consistent", async () => {
    // Prepare
    const p = aProcess({
      userId: "alice",
      guard: { type: "script", path: "_vance/guards/g.js", layer: { source: "PROJECT", project: "proj" } },
      activeSkills: [{ name: "typescript-style", resolvedFromScope: "RESOURCE", oneShot: false, fromRecipe: true, activatedAt: new Date().toISOString(), args: null }],
      allowedSkillsOverride: [],
    });

    // Act
    const created = await store.create(p);
    const read = await store.get(T, p.processId);

    // Assess
    expect(created.created).toBe(true);
    expect(read).toEqual(p);
  });

  it("stores the process and the name claim under tenant-scoped keys", async () => {
    // Prepare
    const p = aProcess();
    await store.create(p);

    // Act
    const processItem = await client.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: `T#${T}#P#${p.processId}` }, sk: { S: "PROCESS" } }, ConsistentRead: true }),
    );
    const claim = nameClaimKey(T, p.sessionId, p.name);
    const claimItem = await client.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: claim.pk }, sk: { S: claim.sk } }, ConsistentRead: true }),
    );

    // Assess
    expect(processItemKey(T, p.processId)).toEqual({ pk: `T#${T}#P#${p.processId}`, sk: "PROCESS" });
    expect(processItem.Item?.version).toEqual({ N: "1" });
    expect(claim).toEqual({ pk: `T#${T}#S#${p.sessionId}`, sk: "NAME#chat" });
    expect(claimItem.Item?.processId).toEqual({ S: p.processId });
  });

  it("rejects a duplicate name in the session with NameTaken", async () => {
    // Prepare
    const first = aProcess();
    await store.create(first);

    // Act
    const attempt = store.create(aProcess({ sessionId: first.sessionId }));

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(NameTaken);
    await expect(attempt).rejects.toMatchObject({ code: "NAME_TAKEN", existingProcessId: first.processId });
  });

  it("is idempotent for a redelivered create with the same id, session and name", async () => {
    // Prepare
    const p = aProcess({ name: "code-review-1", parentProcessId: "parent" });
    await store.create(p);

    // Act
    const again = await store.create(p);

    // Assess
    expect(again).toEqual({ process: p, created: false });
  });

  it("does not let one tenant read or update another tenant's process", async () => {
    // Prepare
    const p = aProcess();
    await store.create(p);

    // Act
    const read = await store.get("globex", p.processId);
    const update = store.update("globex", p.processId, (x) => ({ ...x, locked: true }));

    // Assess
    expect(read).toBeUndefined();
    await expect(update).rejects.toBeInstanceOf(ProcessNotFound);
    expect((await store.get(T, p.processId))?.locked).toBe(false);
  });

  it("keeps key components apart even when an id contains the key separator", async () => {
    // Prepare
    const p = aProcess({ processId: "x#P#y" });
    await store.create(p);

    // Act
    const forged = await store.get(`${T}#P#x`, "y");

    // Assess
    expect(forged).toBeUndefined();
    expect((await store.get(T, "x#P#y"))?.processId).toBe("x#P#y");
  });

  it("updates with a version bump, and writes nothing when the mutation aborts", async () => {
    // Prepare
    const p = aProcess();
    await store.create(p);

    // Act
    const updated = await store.update(T, p.processId, (x) => ({ ...x, statusText: "busy", turn: { turnId: "t-1", oneShotSkills: ["a"] } }));
    const aborted = await store
      .update(T, p.processId, () => {
        throw new SkillLocked("a", "analyze");
      })
      .catch((error: unknown) => error);
    const unchanged = await store.update(T, p.processId, () => undefined);

    // Assess
    expect(updated.process).toMatchObject({ version: 2, statusText: "busy", turn: { turnId: "t-1" } });
    expect(aborted).toBeInstanceOf(SkillLocked);
    expect(unchanged).toEqual({ process: updated.process, changed: false });
    expect(await store.get(T, p.processId)).toEqual(updated.process);
  });

  it("loses no update when 50 writers append to the same process at once", async () => {
    // Prepare
    const p = aProcess();
    await store.create(p);
    const ids = Array.from({ length: 50 }, (_, i) => `m-${i}`);

    // Act
    await Promise.all(ids.map((id) => store.update(T, p.processId, (x) => ({ ...x, pending: [...x.pending, message(id)] }))));
    const final = await store.get(T, p.processId);

    // Assess
    expect(final?.version).toBe(51);
    expect(final?.pending.map((m) => m.id).sort()).toEqual([...ids].sort());
  });

  it("reports an unknown process as ProcessNotFound", async () => {
    // Act
    const attempt = store.update(T, `p-${randomUUID()}`, (x) => x);

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(ProcessNotFound);
  });
});
