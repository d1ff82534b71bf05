import { randomUUID } from "node:crypto";
import { DeleteTableCommand, DescribeTableCommand, GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import type { AttributeValue, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { tableSchema } from "../../shared/aws/table-schema.js";
import { DynamoDBProcessStore } from "../../shared/processes/dynamodb-process-store.js";
import { createTableIfMissing } from "../../infra/local/dynamodb-table.js";
import { nameClaimKey, processItemKey } from "../../shared/aws/dynamodb-keys.js";
import { newProcess } from "../../shared/processes/process.js";
import type { PendingMessage, Process } from "../../shared/processes/process.js";
import { NameTaken, ProcessNotFound } from "../../shared/processes/process-errors.js";
import { SkillLocked } from "../../shared/errors.js";
import { AwsRequestCounter } from "../support/aws-request-counter.js";
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

const message = (id: string): PendingMessage => ({
  id,
  sender: "_skill",
  text: `text ${id}`,
  kind: "action",
  at: new Date().toISOString(),
});

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
      activeSkills: [
        {
          name: "typescript-style",
          resolvedFromScope: "RESOURCE",
          oneShot: false,
          fromRecipe: true,
          activatedAt: new Date().toISOString(),
          args: null,
          activatedBy: "recipe",
        },
      ],
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
      new GetItemCommand({
        TableName: tableName,
        Key: { pk: { S: `T#${T}#P#${p.processId}` }, sk: { S: "PROCESS" } },
        ConsistentRead: true,
      }),
    );
    const claim = nameClaimKey(T, "", p.sessionId, p.name);
    const claimItem = await client.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: claim.pk }, sk: { S: claim.sk } }, ConsistentRead: true }),
    );

    // Assess
    expect(processItemKey(T, p.processId)).toEqual({ pk: `T#${T}#P#${p.processId}`, sk: "PROCESS" });
    expect(processItem.Item?.version).toEqual({ N: "1" });
    expect(claim).toEqual({ pk: `T#${T}#U##S#${p.sessionId}`, sk: "NAME#chat" });
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
    const updated = await store.update(T, p.processId, (x) => ({
      ...x,
      statusText: "busy",
      turn: { turnId: "t-1", oneShotSkills: ["a"] },
    }));
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

type Input = Record<string, unknown>;
interface MiddlewareClient {
  middlewareStack: {
    add(
      middleware: (next: (args: { input: Input }) => Promise<unknown>) => (args: { input: Input }) => Promise<unknown>,
      options: { step: "initialize"; name: string },
    ): void;
  };
}

const asKeyValue = (value: unknown): AttributeValue => (typeof value === "string" ? { S: value } : (value as AttributeValue));

/**
 * What DynamoDB does and dynalite 4.0.0 does not: the failure of a write that asked for
 * ReturnValuesOnConditionCheckFailure ALL_OLD carries the stored item (marshalled). Filled in
 * right after the failure with `raw`, a client the test does not count.
 */
function returnItemOnConflict(client: DynamoDBClient, raw: DynamoDBClient): DynamoDBClient {
  (client as unknown as MiddlewareClient).middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        const { input } = args;
        if (
          error instanceof Error &&
          error.name === "ConditionalCheckFailedException" &&
          input.ReturnValuesOnConditionCheckFailure === "ALL_OLD"
        ) {
          const keyed = (input.Key ?? input.Item) as Input;
          const key = { pk: asKeyValue(keyed.pk), sk: asKeyValue(keyed.sk) };
          const out = await raw.send(new GetItemCommand({ TableName: String(input.TableName), Key: key, ConsistentRead: true }));
          Object.assign(error, { Item: out.Item });
        }
        throw error;
      }
    },
    { step: "initialize", name: "testReturnItemOnConflict" },
  );
  return client;
}

/** Records the input of every conditional write the client sends. */
function recordConditionalWrites(client: DynamoDBClient): Input[] {
  const seen: Input[] = [];
  (client as unknown as MiddlewareClient).middlewareStack.add(
    (next) => async (args) => {
      if (typeof args.input.ConditionExpression === "string") seen.push(args.input);
      return next(args);
    },
    { step: "initialize", name: "testRecordConditionalWrites" },
  );
  return seen;
}

/** Whether the endpoint returns the item with a failed condition when asked to (DynamoDB does). */
async function endpointReturnsItemOnConflict(): Promise<boolean> {
  const Item = { pk: { S: `probe-${randomUUID()}` }, sk: { S: "PROBE" }, n: { N: "1" } };
  await client.send(new PutItemCommand({ TableName: tableName, Item }));
  try {
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item,
        ConditionExpression: "attribute_not_exists(pk)",
        ReturnValuesOnConditionCheckFailure: "ALL_OLD",
      }),
    );
  } catch (error) {
    if (!(error instanceof Error) || error.name !== "ConditionalCheckFailedException") throw error;
    return (error as { Item?: unknown }).Item !== undefined;
  }
  throw new Error("The probe's conditional put did not fail");
}

describe("DynamoDBProcessStore conflicts", () => {
  const counter = new AwsRequestCounter();
  const clients: DynamoDBClient[] = [];
  const countedClient = (): DynamoDBClient => {
    const counted = counter.instrument(testDynamoDbClient());
    clients.push(counted);
    return counted;
  };

  afterAll(() => {
    for (const c of clients) c.destroy();
  });

  /** A process, a snapshot of it read by `racing`, and a write by another writer after that snapshot. */
  async function lostRace(racing: DynamoDBProcessStore): Promise<{ p: Process; snapshot: Process }> {
    const p = aProcess();
    await store.create(p);
    const snapshot = (await racing.get(T, p.processId))!;
    await store.update(T, p.processId, (x) => ({ ...x, pending: [...x.pending, message("theirs")] }));
    counter.reset();
    return { p, snapshot };
  }

  it("re-applies a lost race on the item the failed write returns: two PutItems, no GetItem", async () => {
    // Prepare
    const racing = new DynamoDBProcessStore(returnItemOnConflict(countedClient(), client), tableName);
    const { p, snapshot } = await lostRace(racing);
    const mutate = vi.fn((x: Process) => ({ ...x, pending: [...x.pending, message("ours")] }));

    // Act
    const result = await racing.update(T, p.processId, mutate, { expected: snapshot });
    const requests = counter.snapshot();

    // Assess
    expect(requests).toEqual({ "DynamoDB.PutItem": 2 });
    expect(mutate).toHaveBeenCalledTimes(2);
    expect(result.process.pending.map((m) => m.id)).toEqual(["theirs", "ours"]);
    expect(result.process.version).toBe(3);
    expect(await store.get(T, p.processId)).toEqual(result.process);
  });

  it("answers a redelivered create from the item its failed put returns, without reading the process", async () => {
    // Prepare
    const racing = new DynamoDBProcessStore(returnItemOnConflict(countedClient(), client), tableName);
    const p = aProcess({ guard: { type: "inline", source: "return {}" }, children: [{ processId: "c-1", name: "worker" }] });
    await store.create(p);
    counter.reset();

    // Act
    const again = await racing.create(p);
    const requests = counter.snapshot();

    // Assess
    expect(again).toEqual({ process: p, created: false });
    // The claim put and its read (it is ours), the process put; the process itself is not read.
    expect(requests).toEqual({ "DynamoDB.PutItem": 2, "DynamoDB.GetItem": 1 });
  });

  it("asks for the stored item with every conditional process write, and reads it only where the endpoint returns none", async () => {
    // Prepare
    const returnsItem = await endpointReturnsItemOnConflict();
    const counted = countedClient();
    const writes = recordConditionalWrites(counted);
    const racing = new DynamoDBProcessStore(counted, tableName);
    const { p, snapshot } = await lostRace(racing);

    // Act
    const result = await racing.update(T, p.processId, (x) => ({ ...x, pending: [...x.pending, message("ours")] }), { expected: snapshot });
    const requests = counter.snapshot();

    // Assess
    if (inject("awsMode") === "emulators") {
      // dynalite 4.0.0 accepts ReturnValuesOnConditionCheckFailure but returns no item: hence the fallback read.
      expect(returnsItem).toBe(false);
    }
    expect(requests).toEqual(returnsItem ? { "DynamoDB.PutItem": 2 } : { "DynamoDB.PutItem": 2, "DynamoDB.GetItem": 1 });
    expect(writes).toHaveLength(2);
    expect(writes.map((w) => w.ReturnValuesOnConditionCheckFailure)).toEqual(["ALL_OLD", "ALL_OLD"]);
    expect(result.process.pending.map((m) => m.id)).toEqual(["theirs", "ours"]);
  });
});
