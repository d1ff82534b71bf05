import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { BatchGetCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { UNVERSIONED } from "../../shared/catalogue/catalogue-versions.js";
import { levelVersionKey } from "../../shared/catalogue/dynamodb-catalogue-versions.js";
import { DynamoDBProcessVersionsReader } from "../../shared/catalogue/dynamodb-process-versions-reader.js";
import { InMemoryCatalogueVersions } from "../../shared/catalogue/in-memory-catalogue-versions.js";
import { SeparateProcessVersionsReader } from "../../shared/catalogue/separate-process-versions-reader.js";
import { processItemKey } from "../../shared/aws/dynamodb-keys.js";
import { InMemoryProcessStore } from "../../shared/processes/in-memory-process-store.js";
import { ProcessUnavailable } from "../../shared/processes/process-errors.js";
import { newProcess } from "../../shared/processes/process.js";

const TABLE = "skills";
const PROCESS = newProcess(
  { tenant: "acme", processId: "p-1", sessionId: "s-1", name: "chat", recipe: "default", engine: "ford", projectId: "web" },
  new Date("2030-01-01T00:00:00Z"),
);
const PROCESS_ITEM = { ...PROCESS, ...processItemKey("acme", "p-1"), entity: "process" };
const versionItem = (project: string, version: number) => ({
  ...levelVersionKey("acme", project),
  version,
  changedAt: "2030-01-02T00:00:00.000Z",
});

type Key = { pk: string; sk: string };
const same = (a: Key, b: Key): boolean => a.pk === b.pk && a.sk === b.sk;

/**
 * A document client whose BatchGetItem answers from `items` and leaves the keys `unprocessed`
 * picks unprocessed (DynamoDB does so under throttling). Records the keys of every call.
 */
function fakeTable(items: Record<string, unknown>[], unprocessed: (key: Key, call: number) => boolean) {
  const documents = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: "us-east-1", credentials: { accessKeyId: "x", secretAccessKey: "y" } }),
  );
  const calls: Key[][] = [];
  const consistentReads: unknown[] = [];
  const send = async (command: BatchGetCommand) => {
    const request = command.input.RequestItems![TABLE]!;
    const keys = request.Keys as Key[];
    calls.push(keys);
    consistentReads.push(request.ConsistentRead);
    const left = keys.filter((key) => unprocessed(key, calls.length));
    const answered = keys.filter((key) => !left.includes(key));
    return {
      Responses: { [TABLE]: items.filter((item) => answered.some((key) => same(key, item as Key))) },
      UnprocessedKeys: left.length > 0 ? { [TABLE]: { Keys: left } } : {},
    };
  };
  (documents as unknown as { send: typeof send }).send = send;
  const reader = new DynamoDBProcessVersionsReader(documents, TABLE, { maxAttempts: 3, sleep: async () => {} });
  return { reader, calls, consistentReads };
}

describe("DynamoDBProcessVersionsReader", () => {
  it("reads the process and every level version with one strongly consistent BatchGetItem", async () => {
    // Prepare
    const { reader, calls, consistentReads } = fakeTable([PROCESS_ITEM, versionItem("web", 3)], () => false);

    // Act
    const read = await reader.read("acme", "p-1", ["_user_bob", "web", "_tenant"]);

    // Assess
    expect(calls).toEqual([
      [
        processItemKey("acme", "p-1"),
        levelVersionKey("acme", "_user_bob"),
        levelVersionKey("acme", "web"),
        levelVersionKey("acme", "_tenant"),
      ],
    ]);
    expect(consistentReads).toEqual([true]);
    expect(read.process).toEqual(PROCESS);
    expect(Object.fromEntries(read.versions)).toEqual({
      _user_bob: UNVERSIONED,
      web: { version: 3, changedAt: "2030-01-02T00:00:00.000Z" },
      _tenant: UNVERSIONED,
    });
  });

  it("asks again for the keys left unprocessed, and only for those", async () => {
    // Prepare
    const tenantKey = levelVersionKey("acme", "_tenant");
    const { reader, calls } = fakeTable(
      [PROCESS_ITEM, versionItem("_tenant", 2)],
      (key, call) => call === 1 && (same(key, tenantKey) || key.sk === "PROCESS"),
    );

    // Act
    const read = await reader.read("acme", "p-1", ["web", "_tenant"]);

    // Assess
    expect(calls).toEqual([
      [processItemKey("acme", "p-1"), levelVersionKey("acme", "web"), tenantKey],
      [processItemKey("acme", "p-1"), tenantKey],
    ]);
    expect(read.process).toEqual(PROCESS);
    expect(read.versions.get("_tenant")?.version).toBe(2);
  });

  it("leaves out a version that stays unprocessed, so the catalogue reads it itself", async () => {
    // Prepare
    const webKey = levelVersionKey("acme", "web");
    const { reader, calls } = fakeTable([PROCESS_ITEM, versionItem("web", 3)], (key) => same(key, webKey));

    // Act
    const read = await reader.read("acme", "p-1", ["web", "_tenant"]);

    // Assess
    expect(calls).toHaveLength(3);
    expect(read.process).toEqual(PROCESS);
    expect([...read.versions.keys()]).toEqual(["_tenant"]);
  });

  it("fails retryably when the process itself stays unprocessed", async () => {
    // Prepare
    const { reader } = fakeTable([PROCESS_ITEM], (key) => key.sk === "PROCESS");

    // Act
    const error = await reader.read("acme", "p-1", ["web"]).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(ProcessUnavailable);
    expect(error).toMatchObject({ retryable: true, processId: "p-1", attempts: 3 });
  });

  it("answers an unknown process, or one stored under another tenant, as undefined", async () => {
    // Prepare
    const foreign = { ...PROCESS_ITEM, tenant: "umbrella" };
    const { reader } = fakeTable([foreign], () => false);

    // Act
    const read = await reader.read("acme", "p-1", []);

    // Assess
    expect(read).toEqual({ process: undefined, versions: new Map() });
  });
});

describe("SeparateProcessVersionsReader", () => {
  it("reads the process and the versions from their own ports", async () => {
    // Prepare
    const processes = new InMemoryProcessStore();
    await processes.create(PROCESS);
    const versions = new InMemoryCatalogueVersions(() => new Date("2030-01-02T00:00:00Z"));
    await versions.bump("acme", "web");

    // Act
    const read = await new SeparateProcessVersionsReader(processes, versions).read("acme", "p-1", ["web", "_tenant"]);

    // Assess
    expect(read.process).toEqual(PROCESS);
    expect(Object.fromEntries(read.versions)).toEqual({ web: { version: 1, changedAt: "2030-01-02T00:00:00.000Z" }, _tenant: UNVERSIONED });
  });

  it("leaves every version out when they cannot be read, and still answers the process", async () => {
    // Prepare
    const processes = new InMemoryProcessStore();
    await processes.create(PROCESS);
    const failing = {
      bump: () => Promise.reject(new Error("down")),
      read: () => Promise.reject(new Error("ProvisionedThroughputExceeded")),
    };

    // Act
    const read = await new SeparateProcessVersionsReader(processes, failing).read("acme", "p-1", ["web"]);

    // Assess
    expect(read).toEqual({ process: PROCESS, versions: new Map() });
  });
});
