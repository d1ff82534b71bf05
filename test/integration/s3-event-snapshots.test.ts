import { randomUUID } from "node:crypto";
import { DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { ListObjectsV2Command, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createS3EventsHandler } from "../../functions/s3-events/handler.js";
import { createTableIfMissing } from "../../infra/local/dynamodb-table.js";
import { EMPTY_LEVEL_SNAPSHOT } from "../../shared/catalogue/catalogue-versions.js";
import { DocumentCatalogue } from "../../shared/catalogue/document-catalogue.js";
import { DynamoDBCatalogueVersions } from "../../shared/catalogue/dynamodb-catalogue-versions.js";
import { DynamoDBLevelUsage } from "../../shared/catalogue/dynamodb-level-usage.js";
import { rebuildLevelSnapshot } from "../../shared/catalogue/level-snapshot-rebuild.js";
import { S3LevelSnapshotStore } from "../../shared/catalogue/s3-level-snapshot-store.js";
import { mapWithConcurrency } from "../../shared/documents/cascade-layers.js";
import { S3DocumentStore } from "../../shared/documents/s3-document-store.js";
import { SkillLoader, skillDocumentPreparer } from "../../shared/skills/skill-loader.js";
import { AwsRequestCounter } from "../support/aws-request-counter.js";
import { createTestBucket, deleteTestBucket, testDynamoDbClient, testS3Client } from "../support/aws-clients.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";
import { EmptyLayer } from "../support/steering-harness.js";

/**
 * Issue 27, writes around the API: what the s3-events function does after its bump (counters,
 * name claims, the level snapshot rebuilt at the new version) and the faults it must survive, on
 * the emulators. A "cold instance" is a fresh catalogue over the same table and bucket.
 */

let dynamodb: DynamoDBClient;
let s3: S3Client;
let tableName: string;
let bucket: string;
const counter = new AwsRequestCounter();
const warnings: string[] = [];
const logger = { debug: () => {}, info: () => {}, error: () => {}, warn: (message: string) => void warnings.push(message) };

beforeAll(async () => {
  dynamodb = counter.instrument(testDynamoDbClient());
  s3 = counter.instrument(testS3Client());
  tableName = `skills-s3-events-${randomUUID().slice(0, 8)}`;
  await createTableIfMissing(dynamodb, tableName);
  bucket = await createTestBucket(s3, "s3-events");
});

afterAll(async () => {
  await dynamodb.send(new DeleteTableCommand({ TableName: tableName }));
  await deleteTestBucket(s3, bucket);
  dynamodb.destroy();
  s3.destroy();
});

const store = (): S3DocumentStore => new S3DocumentStore({ client: s3, bucket });
const versions = (): DynamoDBCatalogueVersions => new DynamoDBCatalogueVersions(dynamodb, tableName);
const usage = (): DynamoDBLevelUsage => new DynamoDBLevelUsage(dynamodb, tableName);
const snapshots = (): S3LevelSnapshotStore => new S3LevelSnapshotStore(s3, bucket);
const deps = () => ({
  store: store(),
  snapshots: snapshots(),
  versions: versions(),
  usage: usage(),
  preparer: skillDocumentPreparer,
  logger,
});
const handler = () => createS3EventsHandler({ versions: versions(), logger, followUp: deps() });
const eventFor = (tenant: string, ...paths: string[]) => ({
  Records: paths.map((path) => ({ s3: { object: { key: `tenants/${tenant}/projects/_tenant/${path}` } } })),
});

function coldLoader(): SkillLoader {
  const catalogue = new DocumentCatalogue({
    store: store(),
    bundled: new EmptyLayer(),
    versions: versions(),
    preparer: skillDocumentPreparer,
    snapshots: snapshots(),
    logger,
  });
  return new SkillLoader({ store: store(), bundled: new EmptyLayer(), catalogue });
}

const newTenant = (): string => `t-${randomUUID().slice(0, 8)}`;
const pointerOf = async (tenant: string) => (await versions().read(tenant, ["_tenant"])).get("_tenant")!;
const objectsOf = async (tenant: string): Promise<string[]> =>
  ((await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `catalogue-snapshots/${tenant}/` }))).Contents ?? []).map(
    (o) => o.Key!,
  );
/** What `aws s3 cp` does: a PutObject, nothing else. */
const copy = (tenant: string, path: string, body: string) =>
  s3.send(new PutObjectCommand({ Bucket: bucket, Key: `tenants/${tenant}/projects/_tenant/${path}`, Body: body }));

describe("S3-event follow-up on the emulators", () => {
  it("after a direct write, counts the level right and lets the next cold instance read one snapshot; a document that does not parse is skipped with its reason", async () => {
    // Prepare
    const tenant = newTenant();
    for (const name of ["alpha", "beta"]) await store().put(tenant, "_tenant", skillPath(name), skillMd({ description: name }));
    await usage().seed(tenant, "_tenant", new Map(), []); // a level the documents API counts already
    await copy(
      tenant,
      skillPath("copied"),
      skillMd({ description: "copied", extra: "triggers:\n  - type: PATTERN\n    pattern: 'deploy (now|later)'" }),
    );
    await copy(tenant, skillPath("broken"), "---\ndescription: [unclosed\n---\n");

    // Act
    await handler()(eventFor(tenant, skillPath("alpha"), skillPath("beta"), skillPath("copied"), skillPath("broken")));
    counter.reset();
    const loader = coldLoader();
    const listed = await loader.listAvailable({ tenantId: tenant });
    const requests = counter.snapshot();
    const problems = await loader.problems({ tenantId: tenant });

    // Assess
    expect(listed.map((s) => s.name)).toEqual(["alpha", "beta", "copied"]);
    expect(requests).toEqual({ "DynamoDB.BatchGetItem": 1, "S3.GetObject": 1 });
    expect(problems.find((p) => p.name === "broken")?.message).toBeTruthy();
    expect((await usage().read(tenant, "_tenant", "x"))?.counts).toMatchObject({ documents: 4, patterns: 1 });
    expect(await usage().claimName(tenant, "_tenant", "copied", "Copied")).toBe("copied");
  });

  it("heals a lost event with the next one: the rebuild diffs a listing, not only the event's keys", async () => {
    // Prepare
    const tenant = newTenant();
    await copy(tenant, skillPath("first"), skillMd());
    await handler()(eventFor(tenant, skillPath("first")));
    await copy(tenant, skillPath("lost"), skillMd({ description: "its event never came" }));

    // Act
    await copy(tenant, skillPath("next"), skillMd());
    await handler()(eventFor(tenant, skillPath("next")));
    const listed = await coldLoader().listAvailable({ tenantId: tenant });

    // Assess
    expect(listed.map((s) => s.name)).toEqual(["first", "lost", "next"]);
    expect((await pointerOf(tenant)).snapshot?.version).toBe(2);
    expect(await objectsOf(tenant)).toHaveLength(1);
  });

  it("points a level whose last skill was deleted at no object: a cold instance then reads nothing from S3", async () => {
    // Prepare
    const tenant = newTenant();
    await copy(tenant, skillPath("only"), skillMd());
    await handler()(eventFor(tenant, skillPath("only")));
    await store().delete(tenant, "_tenant", skillPath("only"));

    // Act
    await handler()(eventFor(tenant, skillPath("only")));
    counter.reset();
    const listed = await coldLoader().listAvailable({ tenantId: tenant });

    // Assess
    expect(listed).toEqual([]);
    expect(counter.snapshot()).toEqual({ "DynamoDB.BatchGetItem": 1 });
    expect((await pointerOf(tenant)).snapshot).toMatchObject({ version: 2, key: EMPTY_LEVEL_SNAPSHOT });
    expect(await objectsOf(tenant)).toEqual([]);
  });

  it("lists a never-written level once; later cold instances read nothing from S3 for it", async () => {
    // Prepare
    const tenant = newTenant();
    await coldLoader().listAvailable({ tenantId: tenant });
    counter.reset();

    // Act
    const listed = await coldLoader().listAvailable({ tenantId: tenant });

    // Assess
    expect(listed).toEqual([]);
    expect(counter.snapshot()).toEqual({ "DynamoDB.BatchGetItem": 1 });
  });

  it("lets two racing rebuilds leave the newer one: the pointer only moves forward and no object is left over", async () => {
    // Prepare
    const tenant = newTenant();
    await copy(tenant, skillPath("a"), skillMd());
    const older = await versions().bump(tenant, "_tenant");
    await copy(tenant, skillPath("b"), skillMd());
    const newer = await versions().bump(tenant, "_tenant");

    // Act
    await Promise.all([rebuildLevelSnapshot(deps(), tenant, "_tenant", newer), rebuildLevelSnapshot(deps(), tenant, "_tenant", older)]);
    const pointer = (await pointerOf(tenant)).snapshot;
    const listed = await coldLoader().listAvailable({ tenantId: tenant });

    // Assess
    expect(pointer?.version).toBe(newer.version);
    expect(await objectsOf(tenant)).toEqual([pointer?.key]);
    expect(listed.map((s) => s.name)).toEqual(["a", "b"]);
  });

  it("keeps a level of 20 000 documents at one snapshot GET per cold instance; an event rebuild lists it and reads only the changed SKILL.md", async () => {
    // Prepare: 10 000 skills, each with a reference file.
    const tenant = newTenant();
    const names = Array.from({ length: 10_000 }, (_, i) => `s-${String(i).padStart(5, "0")}`);
    await mapWithConcurrency(names, 32, async (name) => {
      await copy(tenant, skillPath(name), skillMd({ description: `Skill ${name}` }));
      await copy(tenant, `_vance/skills/${name}/references/r.md`, "r");
    });
    await handler()(eventFor(tenant, skillPath(names[0]!)));
    await copy(tenant, skillPath(names[1]!), skillMd({ description: "changed" }));
    counter.reset();

    // Act
    await handler()(eventFor(tenant, skillPath(names[1]!)));
    const rebuild = counter.snapshot();
    counter.reset();
    const listed = await coldLoader().listAvailable({ tenantId: tenant });
    const cold = counter.snapshot();

    // Assess
    expect(rebuild["S3.ListObjectsV2"]).toBe(20);
    // The previous snapshot and the changed SKILL.md (the level was never counted, so no counter read of it).
    expect(rebuild["S3.GetObject"]).toBe(2);
    expect(listed).toHaveLength(10_000);
    expect(listed[1]!.description).toBe("changed");
    expect(cold).toEqual({ "DynamoDB.BatchGetItem": 1, "S3.GetObject": 1 });
  }, 600_000);
});
