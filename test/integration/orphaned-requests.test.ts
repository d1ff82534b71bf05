import { randomUUID } from "node:crypto";
import { DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTableIfMissing } from "../../infra/local/dynamodb-table.js";
import { failOrphanedRequests, ORPHANED_REQUEST_ERROR } from "../../infra/local/orphaned-requests.js";
import { tenantOfRequestKey, requestItemKey } from "../../shared/aws/dynamodb-keys.js";
import { DynamoDBRequestStore } from "../../shared/processes/dynamodb-request-store.js";
import { testDynamoDbClient } from "../support/aws-clients.js";

let client: DynamoDBClient;
let tableName: string;
let store: DynamoDBRequestStore;

beforeAll(async () => {
  client = testDynamoDbClient();
  tableName = `skills-orphans-${randomUUID().slice(0, 8)}`;
  await createTableIfMissing(client, tableName);
  store = new DynamoDBRequestStore(client, tableName);
});

afterAll(async () => {
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  client.destroy();
});

const laneBody = (tenant: string, processId: string, requestId: string): string =>
  JSON.stringify({ requestId, processId, tenant, user: null, kind: "skill.activate", payload: {}, enqueuedAt: new Date().toISOString() });

describe("local stack start: QUEUED requests without a lane message (kill -9 between record and enqueue)", () => {
  it("fails exactly the QUEUED requests no replayed message carries, with a typed retryable error", async () => {
    // Prepare: one request whose message survived, one orphan (tenant and ids that need encoding), one already DONE
    await store.putQueued("acme", "p-1", "r-kept", "skill.activate");
    await store.putQueued("a c#me", "p#2", "r/orphan", "skill.clear");
    await store.putQueued("acme", "p-1", "r-done", "skill.activate");
    await store.complete("acme", "p-1", "r-done", { status: "DONE", result: { ok: true } });

    // Act
    const failed = await failOrphanedRequests(client, tableName, [
      laneBody("acme", "p-1", "r-kept"),
      "not json",
      laneBody("acme", "p-9", "r-orphan"),
    ]);

    // Assess
    expect(failed).toBe(1);
    expect((await store.get("acme", "p-1", "r-kept"))?.status).toBe("QUEUED");
    expect(await store.get("a c#me", "p#2", "r/orphan")).toMatchObject({ status: "FAILED", error: ORPHANED_REQUEST_ERROR });
    expect(await store.get("acme", "p-1", "r-done")).toMatchObject({ status: "DONE", result: { ok: true } });
  });

  it("is idempotent: a second start finds nothing left to fail", async () => {
    // Act
    const again = await failOrphanedRequests(client, tableName, []);

    // Assess: only r-kept was still QUEUED; with no message now, it is failed, and then nothing remains
    expect(again).toBe(1);
    expect(await failOrphanedRequests(client, tableName, [])).toBe(0);
  });

  it("reads the tenant back from a request key and nothing else", () => {
    expect(tenantOfRequestKey(requestItemKey("a c#me", "p#2", "r/x").pk)).toBe("a c#me");
    expect(tenantOfRequestKey("T#acme#P#p-1")).toBeUndefined();
    expect(tenantOfRequestKey("T#%E0%A4%A#P#p#R#r")).toBeUndefined();
  });
});
