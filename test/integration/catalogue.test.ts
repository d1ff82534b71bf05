import { randomUUID } from "node:crypto";
import { DeleteTableCommand, GetItemCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSkillsApp } from "../../shared/app/skills-app.js";
import { UNVERSIONED } from "../../shared/catalogue/catalogue-versions.js";
import { DocumentCatalogue } from "../../shared/catalogue/document-catalogue.js";
import { DynamoDBProcessVersionsReader } from "../../shared/catalogue/dynamodb-process-versions-reader.js";
import type { ProcessVersionsReader } from "../../shared/catalogue/process-versions-reader.js";
import { catalogueChangeNotifier } from "../../shared/catalogue/document-change-notifier.js";
import { DynamoDBCatalogueVersions, levelVersionKey } from "../../shared/catalogue/dynamodb-catalogue-versions.js";
import { BundledDocumentLayer } from "../../shared/documents/bundled-document-layer.js";
import { S3DocumentStore } from "../../shared/documents/s3-document-store.js";
import { HistoryKeepingDocumentStore } from "../../shared/documents/history-keeping-document-store.js";
import { InMemoryLane } from "../../shared/lanes/in-memory-lane.js";
import { DynamoDBProcessStore } from "../../shared/processes/dynamodb-process-store.js";
import { InMemoryRequestStore } from "../../shared/processes/in-memory-request-store.js";
import { newProcess } from "../../shared/processes/process.js";
import type { PendingMessage, Process } from "../../shared/processes/process.js";
import { createTableIfMissing } from "../../infra/local/dynamodb-table.js";
import { RecipeLoader } from "../../shared/recipes/recipe-loader.js";
import { AwsRequestCounter } from "../support/aws-request-counter.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";
import { createTestBucket, deleteTestBucket, testDynamoDbClient, testS3Client } from "../support/aws-clients.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";
import { EmptyLayer, FakeRenderer } from "../support/steering-harness.js";

const SCOPE = { tenantId: "acme", userId: "bob", projectId: "web" };

let dynamodb: DynamoDBClient;
let s3: S3Client;
let tableName: string;
let bucket: string;
const counter = new AwsRequestCounter();

beforeAll(async () => {
  dynamodb = counter.instrument(testDynamoDbClient());
  s3 = counter.instrument(testS3Client());
  tableName = `skills-catalogue-${randomUUID().slice(0, 8)}`;
  await createTableIfMissing(dynamodb, tableName);
  bucket = await createTestBucket(s3, "catalogue");
});

afterAll(async () => {
  await dynamodb.send(new DeleteTableCommand({ TableName: tableName }));
  await deleteTestBucket(s3, bucket);
  dynamodb.destroy();
  s3.destroy();
});

describe("DynamoDBCatalogueVersions", () => {
  it("reads never-bumped levels as version 0 and counts bumps per tenant and level", async () => {
    // Prepare
    const versions = new DynamoDBCatalogueVersions(dynamodb, tableName, { clock: () => new Date("2030-01-01T00:00:00Z") });
    const tenant = `t-${randomUUID().slice(0, 8)}`;

    // Act
    const before = await versions.read(tenant, ["web", "_tenant", "_user_a+b@x.com"]);
    await versions.bump(tenant, "web");
    const second = await versions.bump(tenant, "web");
    await versions.bump(tenant, "_user_a+b@x.com");
    await versions.bump(`${tenant}-other`, "_tenant");
    const after = await versions.read(tenant, ["web", "_tenant", "_user_a+b@x.com"]);

    // Assess
    expect([...before.values()].map((v) => v.version)).toEqual([0, 0, 0]);
    expect(second).toEqual({ version: 2, changedAt: "2030-01-01T00:00:00.000Z" });
    expect(Object.fromEntries([...after].map(([project, v]) => [project, v.version]))).toEqual({
      web: 2,
      _tenant: 0,
      "_user_a+b@x.com": 1,
    });
  });

  it("stores the version item under T#<tenant>#LEVEL#<project> / VERSION with URI-encoded parts", async () => {
    // Prepare
    const versions = new DynamoDBCatalogueVersions(dynamodb, tableName);
    const tenant = `t-${randomUUID().slice(0, 8)}`;

    // Act
    await versions.bump(tenant, "_user_a@x.com");
    const key = levelVersionKey(tenant, "_user_a@x.com");
    const out = await dynamodb.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: key.pk }, sk: { S: key.sk } }, ConsistentRead: true }),
    );

    // Assess
    expect(key).toEqual({ pk: `T#${tenant}#LEVEL#_user_a%40x.com`, sk: "VERSION" });
    expect(out.Item?.version).toEqual({ N: "1" });
  });

  it("reads all levels of a scope with one BatchGetItem", async () => {
    // Prepare
    const versions = new DynamoDBCatalogueVersions(dynamodb, tableName);
    counter.reset();

    // Act
    await versions.read("acme", ["_user_bob", "web", "_tenant"]);

    // Assess
    expect(counter.snapshot()).toEqual({ "DynamoDB.BatchGetItem": 1 });
  });
});

describe("warm catalogue over S3 and DynamoDB", () => {
  it("composes a steady-state turn with 0 S3 requests and one BatchGetItem; an edit costs one list and one read", async () => {
    // Prepare
    const store = new S3DocumentStore({ client: s3, bucket });
    const versions = new DynamoDBCatalogueVersions(dynamodb, tableName);
    const notify = catalogueChangeNotifier(versions);
    const bundled = new BundledDocumentLayer();
    const catalogue = new DocumentCatalogue({ store, bundled, versions, logger: { warn: () => undefined } });
    const skills = new SkillLoader({ store, bundled, catalogue });
    const recipes = new RecipeLoader({ store, bundled, catalogue });
    for (let i = 0; i < 20; i++) await store.put("acme", "web", skillPath(`skill-${i}`), skillMd({ title: `skill ${i}` }));
    await store.put("acme", "_tenant", skillPath("alpha"), skillMd({ title: "alpha" }));
    // A turn: the recipe, the listing for the trigger hook and the active skills, all at once.
    const turn = () => Promise.all([recipes.load(SCOPE, "default"), skills.listAvailable(SCOPE), skills.load(SCOPE, "code-review")]);
    await turn();

    // Act
    counter.reset();
    const [recipe, listed, active] = await turn();
    const steady = counter.snapshot();
    await store.put("acme", "web", skillPath("skill-3"), skillMd({ title: "skill 3, edited" }));
    await notify({ tenant: "acme", project: "web", path: skillPath("skill-3") });
    counter.reset();
    const [, afterEdit] = await turn();
    const edited = counter.snapshot();

    // Assess
    expect([recipe?.name, listed.length, active?.source]).toEqual(["default", 24, "RESOURCE"]);
    expect(steady).toEqual({ "DynamoDB.BatchGetItem": 1 });
    expect(afterEdit.find((s) => s.name === "skill-3")?.title).toBe("skill 3, edited");
    expect(edited).toEqual({ "DynamoDB.BatchGetItem": 1, "S3.ListObjectsV2": 1, "S3.GetObject": 1 });
  });

  it("keeps a naive loader on the same store as fresh as before, at the price of S3 on every call", async () => {
    // Prepare
    const store = new S3DocumentStore({ client: s3, bucket });
    const naive = new SkillLoader({ store, bundled: new BundledDocumentLayer() });
    await naive.listAvailable(SCOPE);

    // Act
    counter.reset();
    await naive.listAvailable(SCOPE);

    // Assess
    expect(counter.total("DynamoDB")).toBe(0);
    expect(counter.byOperation.get("S3.ListObjectsV2")).toBe(3);
    expect(counter.byOperation.get("S3.GetObject")).toBeGreaterThan(20);
  });
});

describe("DynamoDBProcessVersionsReader", () => {
  it("reads a process and the versions of its levels with one BatchGetItem", async () => {
    // Prepare
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const processes = new DynamoDBProcessStore(dynamodb, tableName);
    const versions = new DynamoDBCatalogueVersions(dynamodb, tableName);
    const reader = new DynamoDBProcessVersionsReader(dynamodb, tableName);
    const { process } = await processes.create(
      newProcess({
        tenant,
        processId: `p-${randomUUID()}`,
        sessionId: "s-1",
        name: "chat",
        recipe: "open",
        engine: "ford",
        projectId: "web",
        userId: "bob",
      }),
    );
    await versions.bump(tenant, "web");
    counter.reset();

    // Act
    const read = await reader.read(tenant, process.processId, ["_user_bob", "web", "_tenant"]);
    const requests = counter.snapshot();
    const unknown = await reader.read(tenant, "p-unknown", ["web"]);
    const foreign = await reader.read(`${tenant}-other`, process.processId, []);

    // Assess
    expect(requests).toEqual({ "DynamoDB.BatchGetItem": 1 });
    expect(read.process).toEqual(process);
    expect(Object.fromEntries([...read.versions].map(([project, v]) => [project, v.version]))).toEqual({
      _user_bob: 0,
      web: 1,
      _tenant: 0,
    });
    expect(read.versions.get("_tenant")).toEqual(UNVERSIONED);
    expect(unknown.process).toBeUndefined();
    expect(unknown.versions.get("web")?.version).toBe(1);
    expect(foreign.process).toBeUndefined();
  });
});

/** Runs `between` after each read, before the turn goes on: another writer that wins the race. */
class RacingReader implements ProcessVersionsReader {
  between: (() => Promise<void>) | undefined;
  constructor(private readonly inner: ProcessVersionsReader) {}
  async read(tenant: string, processId: string, projects: readonly string[]) {
    const read = await this.inner.read(tenant, processId, projects);
    const between = this.between;
    this.between = undefined;
    await between?.();
    return read;
  }
}

describe("lane turns over DynamoDB and S3", () => {
  async function laneSetup() {
    const tenant = `lane-${randomUUID().slice(0, 8)}`;
    const store = new S3DocumentStore({ client: s3, bucket });
    const versions = new DynamoDBCatalogueVersions(dynamodb, tableName);
    const processes = new DynamoDBProcessStore(dynamodb, tableName);
    const reader = new RacingReader(new DynamoDBProcessVersionsReader(dynamodb, tableName));
    const app = createSkillsApp({
      documents: store,
      bundled: new EmptyLayer(),
      processes,
      requests: new InMemoryRequestStore(),
      lane: new InMemoryLane(),
      renderer: new FakeRenderer(),
      catalogueVersions: versions,
      processVersions: reader,
      logger: { warn: () => undefined },
    });
    await store.put(tenant, "_tenant", "_vance/recipes/open.yaml", "engine: ford\ndefaultActiveSkills: [alpha]\n");
    await store.put(tenant, "web", skillPath("alpha"), skillMd({ title: "Alpha", body: "Alpha body one." }));
    for (let i = 0; i < 10; i++) await store.put(tenant, "web", skillPath(`skill-${i}`), skillMd({ title: `skill ${i}` }));
    const process = await app.spawn(tenant, BOB, { sessionId: "s1", recipe: "open", projectId: "web" });
    const compose = (requestId: string) =>
      app.turns.compose({ tenant, processId: process.processId, requestId, user: BOB }, { turnId: `t-${requestId}`, message: "hello" });
    return { tenant, store, versions, reader, process, compose };
  }

  it("composes a steady turn with one BatchGetItem and one conditional PutItem, and no S3 request", async () => {
    // Prepare
    const { compose } = await laneSetup();
    counter.reset();
    await compose("cold");
    const cold = counter.total("DynamoDB");

    // Act
    counter.reset();
    const { result } = await compose("steady");
    const steady = counter.snapshot();

    // Assess
    expect(result.skillSection).toContain("Alpha body one.");
    expect(steady).toEqual({ "DynamoDB.BatchGetItem": 1, "DynamoDB.PutItem": 1 });
    // A process this instance has not seen yet: its levels are read by the catalogue, one request more.
    expect(cold).toBe(3);
  });

  it("shows an edit on the very next turn for one S3 list and one read more", async () => {
    // Prepare
    const { tenant, store, versions, compose } = await laneSetup();
    await compose("warm-up");
    await store.put(tenant, "web", skillPath("alpha"), skillMd({ title: "Alpha", body: "Alpha body two." }));
    await catalogueChangeNotifier(versions)({ tenant, project: "web", path: skillPath("alpha") });

    // Act
    counter.reset();
    const { result } = await compose("after-edit");
    const edited = counter.snapshot();

    // Assess
    expect(result.skillSection).toContain("Alpha body two.");
    expect(edited).toEqual({ "DynamoDB.BatchGetItem": 1, "DynamoDB.PutItem": 1, "S3.ListObjectsV2": 1, "S3.GetObject": 1 });
  });

  it("composes a steady turn of a process with a version pin at the same cost: the pinned version is read once, then never again", async () => {
    // Prepare: a store that keeps versions (the local stack's history, on a second bucket).
    const tenant = `pin-${randomUUID().slice(0, 8)}`;
    const historyBucket = await createTestBucket(s3, "history");
    const store = new HistoryKeepingDocumentStore(
      new S3DocumentStore({ client: s3, bucket }),
      new S3DocumentStore({ client: s3, bucket: historyBucket }),
    );
    const versions = new DynamoDBCatalogueVersions(dynamodb, tableName);
    const app = createSkillsApp({
      documents: store,
      bundled: new EmptyLayer(),
      processes: new DynamoDBProcessStore(dynamodb, tableName),
      requests: new InMemoryRequestStore(),
      lane: new InMemoryLane(),
      renderer: new FakeRenderer(),
      catalogueVersions: versions,
      processVersions: new DynamoDBProcessVersionsReader(dynamodb, tableName),
      logger: { warn: () => undefined },
    });
    await store.put(tenant, "web", skillPath("alpha"), skillMd({ title: "Alpha", body: "Alpha body one." }));
    const [pinned] = (await store.versions(tenant, "web", skillPath("alpha")))!;
    await store.put(tenant, "web", skillPath("alpha"), skillMd({ title: "Alpha", body: "Alpha body two." }));
    await store.put(
      tenant,
      "_tenant",
      "_vance/recipes/pinning.yaml",
      `engine: ford\ndefaultActiveSkills: [alpha]\nskillVersions:\n  alpha: ${pinned!.versionId}\n`,
    );
    const process = await app.spawn(tenant, BOB, { sessionId: "s1", recipe: "pinning", projectId: "web" });
    const compose = (requestId: string) =>
      app.turns.compose({ tenant, processId: process.processId, requestId, user: BOB }, { turnId: `t-${requestId}`, message: "hello" });

    // Act
    await compose("cold");
    counter.reset();
    const { result } = await compose("steady");
    const steady = counter.snapshot();

    // Assess
    expect(result.skillSection).toContain("Alpha body one.");
    expect(result.skillSection).not.toContain("Alpha body two.");
    expect(steady).toEqual({ "DynamoDB.BatchGetItem": 1, "DynamoDB.PutItem": 1 });
    await deleteTestBucket(s3, historyBucket);
  });

  it("re-reads and re-applies when another writer changes the process between the turn's read and write", async () => {
    // Prepare
    const { tenant, reader, process, compose } = await laneSetup();
    const other = testDynamoDbClient();
    const otherWriter = new DynamoDBProcessStore(other, tableName);
    await compose("warm-up");
    const before = (await otherWriter.get(tenant, process.processId))!;
    const theirs: PendingMessage = {
      id: "theirs",
      sender: "_skill",
      text: "from elsewhere",
      kind: "action",
      at: "2030-01-01T00:00:00.000Z",
    };
    reader.between = async () => {
      await otherWriter.update(tenant, process.processId, (p: Process) => ({ ...p, pending: [...p.pending, theirs] }));
    };

    // Act
    counter.reset();
    const { result, process: written } = await compose("raced");
    const raced = counter.snapshot();
    const stored = await otherWriter.get(tenant, process.processId);
    other.destroy();

    // Assess
    expect(raced).toEqual({ "DynamoDB.BatchGetItem": 1, "DynamoDB.PutItem": 2, "DynamoDB.GetItem": 1 });
    expect(result.turnId).toBe("t-raced");
    expect(stored).toEqual(written);
    expect(stored?.version).toBe(before.version + 2);
    expect(stored?.turn?.turnId).toBe("t-raced");
    expect(stored?.pending.map((m) => m.id)).toEqual(["theirs"]);
    expect(stored?.appliedRequests.filter((id) => id === "raced")).toEqual(["raced"]);
  });
});

const BOB = { login: "bob" };
