import { randomUUID } from "node:crypto";
import { DeleteTableCommand, GetItemCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DocumentCatalogue } from "../../shared/catalogue/document-catalogue.js";
import { catalogueChangeNotifier } from "../../shared/catalogue/document-change-notifier.js";
import { DynamoDBCatalogueVersions, levelVersionKey } from "../../shared/catalogue/dynamodb-catalogue-versions.js";
import { BundledDocumentLayer } from "../../shared/documents/bundled-document-layer.js";
import { S3DocumentStore } from "../../shared/documents/s3-document-store.js";
import { createTableIfMissing } from "../../shared/processes/dynamodb-table.js";
import { RecipeLoader } from "../../shared/recipes/recipe-loader.js";
import { AwsRequestCounter } from "../../shared/runtime/aws-request-counter.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";
import { createTestBucket, deleteTestBucket, testDynamoDbClient, testS3Client } from "../support/aws-clients.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";

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
    expect(Object.fromEntries([...after].map(([project, v]) => [project, v.version]))).toEqual({ web: 2, _tenant: 0, "_user_a+b@x.com": 1 });
  });

  it("stores the version item under T#<tenant>#LEVEL#<project> / VERSION with URI-encoded parts", async () => {
    // Prepare
    const versions = new DynamoDBCatalogueVersions(dynamodb, tableName);
    const tenant = `t-${randomUUID().slice(0, 8)}`;

    // Act
    await versions.bump(tenant, "_user_a@x.com");
    const key = levelVersionKey(tenant, "_user_a@x.com");
    const out = await dynamodb.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: key.pk }, sk: { S: key.sk } }, ConsistentRead: true }));

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
