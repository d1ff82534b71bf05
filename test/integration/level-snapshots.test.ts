import { randomUUID } from "node:crypto";
import { DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTableIfMissing } from "../../infra/local/dynamodb-table.js";
import { DocumentCatalogue } from "../../shared/catalogue/document-catalogue.js";
import { DynamoDBCatalogueVersions } from "../../shared/catalogue/dynamodb-catalogue-versions.js";
import { S3LevelSnapshotStore } from "../../shared/catalogue/s3-level-snapshot-store.js";
import { mapWithConcurrency } from "../../shared/documents/cascade-layers.js";
import { S3DocumentStore } from "../../shared/documents/s3-document-store.js";
import { gzipSync } from "node:zlib";
import { SkillLoader, skillDocumentPreparer } from "../../shared/skills/skill-loader.js";
import { AwsRequestCounter } from "../support/aws-request-counter.js";
import { createTestBucket, deleteTestBucket, testDynamoDbClient, testS3Client } from "../support/aws-clients.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";
import { EmptyLayer } from "../support/steering-harness.js";

const SKILLS = 40;

let dynamodb: DynamoDBClient;
let s3: S3Client;
let tableName: string;
let bucket: string;
const counter = new AwsRequestCounter();
const warnings: string[] = [];
const logger = { warn: (message: string) => void warnings.push(message) };

beforeAll(async () => {
  dynamodb = counter.instrument(testDynamoDbClient());
  s3 = counter.instrument(testS3Client());
  tableName = `skills-snapshots-${randomUUID().slice(0, 8)}`;
  await createTableIfMissing(dynamodb, tableName);
  bucket = await createTestBucket(s3, "snapshots");
});

afterAll(async () => {
  await dynamodb.send(new DeleteTableCommand({ TableName: tableName }));
  await deleteTestBucket(s3, bucket);
  dynamodb.destroy();
  s3.destroy();
});

/** A fresh instance: nothing warm, the same table and bucket. */
function coldLoader(): SkillLoader {
  const store = new S3DocumentStore({ client: s3, bucket });
  const catalogue = new DocumentCatalogue({
    store,
    bundled: new EmptyLayer(),
    versions: new DynamoDBCatalogueVersions(dynamodb, tableName),
    preparer: skillDocumentPreparer,
    snapshots: new S3LevelSnapshotStore(s3, bucket),
    logger,
  });
  return new SkillLoader({ store, bundled: new EmptyLayer(), catalogue });
}

async function seededTenant(): Promise<{ tenant: string; store: S3DocumentStore; versions: DynamoDBCatalogueVersions }> {
  const tenant = `t-${randomUUID().slice(0, 8)}`;
  const store = new S3DocumentStore({ client: s3, bucket });
  const versions = new DynamoDBCatalogueVersions(dynamodb, tableName);
  await mapWithConcurrency(
    Array.from({ length: SKILLS }, (_, i) => i),
    8,
    async (i) => {
      const name = `s-${String(i).padStart(3, "0")}`;
      await store.put(tenant, "_tenant", skillPath(name), skillMd({ description: `Skill ${i}`, body: `Body ${i}.` }));
      await store.put(tenant, "_tenant", `_vance/skills/${name}/references/r.md`, `Reference ${i}`);
    },
  );
  await versions.bump(tenant, "_tenant");
  return { tenant, store, versions };
}

describe("level snapshots on the emulators", () => {
  it("lets a second cold instance read one snapshot object instead of listing and reading every SKILL.md", async () => {
    // Prepare
    const { tenant, versions } = await seededTenant();
    const scope = { tenantId: tenant };
    const first = await coldLoader().listAvailable(scope);
    const pointer = (await versions.read(tenant, ["_tenant"])).get("_tenant")?.snapshot;
    counter.reset();

    // Act
    const second = coldLoader();
    const listed = await second.listAvailable(scope);
    const listing = counter.snapshot();
    const complete = await second.complete(scope, listed[3]!);

    // Assess
    expect(first).toHaveLength(SKILLS);
    expect(pointer?.version).toBe(1);
    expect(listed.map((s) => [s.name, s.description, s.files])).toEqual(first.map((s) => [s.name, s.description, s.files]));
    expect(listed[3]!.body).toBeUndefined();
    expect(listing).toEqual({ "DynamoDB.BatchGetItem": 1, "S3.GetObject": 1 });
    expect(complete?.body).toContain("Body 3.");
  });

  it("sees a write made around the API once its version moved, and names a document that does not parse", async () => {
    // Prepare
    const { tenant, store, versions } = await seededTenant();
    const scope = { tenantId: tenant };
    await coldLoader().listAvailable(scope);
    await store.put(tenant, "_tenant", skillPath("direct"), skillMd({ description: "Written with aws s3 cp" }));
    await store.put(tenant, "_tenant", skillPath("broken"), "---\ndescription: [unclosed\n---\n");
    await versions.bump(tenant, "_tenant"); // what the S3-event path does

    // Act
    const loader = coldLoader();
    const listed = await loader.listAvailable(scope);
    const problems = await loader.problems(scope);
    const rewritten = (await versions.read(tenant, ["_tenant"])).get("_tenant")?.snapshot;
    const third = await coldLoader().listAvailable(scope);

    // Assess
    expect(listed.map((s) => s.name)).toContain("direct");
    expect(listed).toHaveLength(SKILLS + 1);
    expect(problems.some((p) => p.name === "broken" && p.severity === "error")).toBe(true);
    expect(rewritten?.version).toBe(2);
    expect(third.map((s) => s.name)).toEqual(listed.map((s) => s.name));
  });

  it.each([
    ["truncated", (bytes: Uint8Array) => bytes.subarray(0, Math.floor(bytes.byteLength / 2))],
    ["not gzip", () => new TextEncoder().encode("garbage")],
    ["of an older format", () => gzipSync(JSON.stringify({ format: 0, version: 1, changedAt: null, refs: [], prepared: [] }))],
  ])("serves every skill from a listing when the snapshot is %s, says why and writes it again", async (_label, corrupt) => {
    // Prepare
    const { tenant, versions } = await seededTenant();
    const scope = { tenantId: tenant };
    await coldLoader().listAvailable(scope);
    const pointer = (await versions.read(tenant, ["_tenant"])).get("_tenant")!.snapshot!;
    const snapshots = new S3LevelSnapshotStore(s3, bucket);
    await snapshots.put(pointer.key, corrupt((await snapshots.get(pointer.key))!));
    warnings.length = 0;

    // Act
    const listed = await coldLoader().listAvailable(scope);
    const repaired = (await versions.read(tenant, ["_tenant"])).get("_tenant")!.snapshot!;
    counter.reset();
    const again = await coldLoader().listAvailable(scope);

    // Assess
    expect(listed).toHaveLength(SKILLS);
    expect(warnings.some((w) => w.includes("unreadable"))).toBe(true);
    expect(repaired.key).not.toBe(pointer.key);
    expect(again).toHaveLength(SKILLS);
    expect(counter.snapshot()).toEqual({ "DynamoDB.BatchGetItem": 1, "S3.GetObject": 1 });
  });

  it("tells the writer that moves the pointer which snapshot it replaced, read in the same write", async () => {
    // Prepare: a level whose pointer a racing writer moved after this one last read it
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const versions = new DynamoDBCatalogueVersions(dynamodb, tableName);
    await versions.bump(tenant, "_tenant");

    // Act
    const first = await versions.pointSnapshot(tenant, "_tenant", { version: 1, key: "catalogue-snapshots/one.json.gz" });
    const second = await versions.pointSnapshot(tenant, "_tenant", { version: 2, key: "catalogue-snapshots/two.json.gz" });
    const stale = await versions.pointSnapshot(tenant, "_tenant", { version: 1, key: "catalogue-snapshots/stale.json.gz" });

    // Assess
    expect(first).toEqual({ moved: true, replaced: undefined });
    expect(second).toEqual({ moved: true, replaced: "catalogue-snapshots/one.json.gz" });
    expect(stale).toEqual({ moved: false });
  });

  it("keeps the newer pointer when a stale rebuild races it", async () => {
    // Prepare
    const { tenant, versions } = await seededTenant();
    await versions.bump(tenant, "_tenant");
    await coldLoader().listAvailable({ tenantId: tenant });
    const newer = (await versions.read(tenant, ["_tenant"])).get("_tenant")!.snapshot!;

    // Act
    const moved = await versions.pointSnapshot(tenant, "_tenant", { version: 1, key: "catalogue-snapshots/stale.json.gz" });

    // Assess
    expect(newer.version).toBe(2);
    expect(moved).toEqual({ moved: false });
    expect((await versions.read(tenant, ["_tenant"])).get("_tenant")!.snapshot).toEqual(newer);
  });
});
