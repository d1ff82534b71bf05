import { randomUUID } from "node:crypto";
import { DeleteTableCommand, GetItemCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TABLE_TTL_ATTRIBUTE } from "../../shared/aws/table-schema.js";
import { DynamoDBRequestStore } from "../../shared/processes/dynamodb-request-store.js";
import { createTableIfMissing } from "../../infra/local/dynamodb-table.js";
import { requestItemKey } from "../../shared/aws/dynamodb-keys.js";
import { RequestNotFound } from "../../shared/processes/process-errors.js";
import { testDynamoDbClient } from "../support/aws-clients.js";

const T = "acme";

let client: DynamoDBClient;
let tableName: string;
let store: DynamoDBRequestStore;

beforeAll(async () => {
  client = testDynamoDbClient();
  tableName = `skills-requests-${randomUUID().slice(0, 8)}`;
  await createTableIfMissing(client, tableName);
  store = new DynamoDBRequestStore(client, tableName);
});

afterAll(async () => {
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  client.destroy();
});

const newRequestId = (): string => `r-${randomUUID()}`;

const rawItem = async (tenant: string, requestId: string, processId = "p-1") => {
  const key = requestItemKey(tenant, processId, requestId);
  const out = await client.send(
    new GetItemCommand({ TableName: tableName, Key: { pk: { S: key.pk }, sk: { S: key.sk } }, ConsistentRead: true }),
  );
  return out.Item;
};

describe("DynamoDBRequestStore", () => {
  it("records a request as QUEUED under a tenant- and process-scoped key with an expiry about a day ahead", async () => {
    // Prepare
    const requestId = newRequestId();
    const before = Math.floor(Date.now() / 1000);

    // Act
    const put = await store.putQueued(T, "p-1", requestId, "skill.activate");
    const item = await rawItem(T, requestId);

    // Assess
    expect(put).toEqual({ created: true, record: { requestId, processId: "p-1", kind: "skill.activate", status: "QUEUED" } });
    expect(requestItemKey(T, "p-1", requestId)).toEqual({ pk: `T#${T}#P#p-1#R#${requestId}`, sk: "REQUEST" });
    const expiresAt = Number(item?.[TABLE_TTL_ATTRIBUTE]?.N);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 24 * 3600);
    expect(expiresAt).toBeLessThanOrEqual(before + 24 * 3600 + 60);
  });

  it("keeps a DONE record when the same requestId is queued again", async () => {
    // Prepare
    const requestId = newRequestId();
    await store.putQueued(T, "p-1", requestId, "skill.activate");
    await store.complete(T, "p-1", requestId, { status: "DONE", result: { activeSkills: [{ name: "x" }], turnScheduled: false } });

    // Act
    const again = await store.putQueued(T, "p-1", requestId, "skill.activate");

    // Assess
    expect(again).toEqual({
      created: false,
      record: {
        requestId,
        processId: "p-1",
        kind: "skill.activate",
        status: "DONE",
        result: { activeSkills: [{ name: "x" }], turnScheduled: false },
      },
    });
  });

  it("lets the first outcome win and refreshes the expiry on completion", async () => {
    // Prepare
    const requestId = newRequestId();
    await store.putQueued(T, "p-1", requestId, "skill.clear");

    // Act
    const failed = await store.complete(T, "p-1", requestId, { status: "FAILED", error: { code: "SKILL_LOCKED", message: "locked" } });
    const late = await store.complete(T, "p-1", requestId, { status: "DONE", result: {} });
    const read = await store.get(T, "p-1", requestId);

    // Assess
    expect(failed).toEqual({
      requestId,
      processId: "p-1",
      kind: "skill.clear",
      status: "FAILED",
      error: { code: "SKILL_LOCKED", message: "locked" },
    });
    expect(late).toEqual(failed);
    expect(read).toEqual(failed);
    expect((await rawItem(T, requestId))?.[TABLE_TTL_ATTRIBUTE]?.N).toBeDefined();
  });

  it("stores results deeper than DynamoDB's map nesting limit", async () => {
    // Prepare
    const requestId = newRequestId();
    await store.putQueued(T, "p-1", requestId, "tool.invoke");
    let deep: unknown = "bottom";
    for (let i = 0; i < 40; i++) deep = { next: deep };

    // Act
    await store.complete(T, "p-1", requestId, { status: "DONE", result: deep });

    // Assess
    expect((await store.get(T, "p-1", requestId))?.result).toEqual(deep);
  });

  it("refuses to complete an unknown request and keeps tenants apart", async () => {
    // Prepare
    const requestId = newRequestId();
    await store.putQueued(T, "p-1", requestId, "skill.activate");

    // Act
    const completion = await store.complete("globex", "p-1", requestId, { status: "DONE", result: 1 }).catch((error: unknown) => error);
    const foreign = await store.get("globex", "p-1", requestId);

    // Assess
    expect(completion).toBeInstanceOf(RequestNotFound);
    expect(foreign).toBeUndefined();
    expect((await store.get(T, "p-1", requestId))?.status).toBe("QUEUED");
  });

  it("waits for a completion that happens while polling", async () => {
    // Prepare
    const requestId = newRequestId();
    await store.putQueued(T, "p-1", requestId, "turn.compose");
    const lane = new Promise<void>((resolve) => {
      setTimeout(() => void store.complete(T, "p-1", requestId, { status: "DONE", result: { turnId: "t-1" } }).then(() => resolve()), 150);
    });

    // Act
    const result = await store.waitFor(T, "p-1", requestId, 10_000);
    await lane;

    // Assess
    expect(result).toMatchObject({ status: "DONE", result: { turnId: "t-1" } });
  });

  it("returns the QUEUED record when the wait times out", async () => {
    // Prepare
    const requestId = newRequestId();
    await store.putQueued(T, "p-1", requestId, "turn.compose");

    // Act
    const result = await store.waitFor(T, "p-1", requestId, 300);

    // Assess
    expect(result).toMatchObject({ requestId, status: "QUEUED" });
  });

  it("keeps the same requestId on two processes as two requests, each with its fingerprint", async () => {
    // Prepare
    const requestId = newRequestId();
    await store.putQueued(T, "p-1", requestId, "skill.activate", "fp-1");

    // Act
    const other = await store.putQueued(T, "p-2", requestId, "skill.clear", "fp-2");
    await store.complete(T, "p-2", requestId, { status: "DONE", result: { activeSkills: [] } });

    // Assess
    expect(other.created).toBe(true);
    expect(await store.get(T, "p-1", requestId)).toEqual({
      requestId,
      processId: "p-1",
      kind: "skill.activate",
      fingerprint: "fp-1",
      status: "QUEUED",
    });
    expect(await store.get(T, "p-2", requestId)).toMatchObject({ kind: "skill.clear", fingerprint: "fp-2", status: "DONE" });
    expect(await rawItem(T, requestId, "p-2")).toMatchObject({ fingerprint: { S: "fp-2" } });
  });
});
