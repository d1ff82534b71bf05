import { randomUUID } from "node:crypto";
import { DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTableIfMissing } from "../../infra/local/dynamodb-table.js";
import { DocumentService } from "../../shared/app/document-service.js";
import { catalogueChangeNotifier } from "../../shared/catalogue/document-change-notifier.js";
import { DynamoDBCatalogueVersions } from "../../shared/catalogue/dynamodb-catalogue-versions.js";
import { DynamoDBLevelUsage } from "../../shared/catalogue/dynamodb-level-usage.js";
import { mapWithConcurrency } from "../../shared/documents/cascade-layers.js";
import { S3DocumentStore } from "../../shared/documents/s3-document-store.js";
import { InvalidDocument } from "../../shared/errors.js";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { AwsRequestCounter } from "../support/aws-request-counter.js";
import { createTestBucket, deleteTestBucket, testDynamoDbClient, testS3Client } from "../support/aws-clients.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";

let dynamodb: DynamoDBClient;
let s3: S3Client;
let tableName: string;
let bucket: string;
const counter = new AwsRequestCounter();
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const patternSkill = (seed: string): string => skillMd({ extra: `triggers:\n  - type: PATTERN\n    pattern: '${seed} (now|later)'` });

beforeAll(async () => {
  dynamodb = counter.instrument(testDynamoDbClient());
  s3 = counter.instrument(testS3Client());
  tableName = `skills-usage-${randomUUID().slice(0, 8)}`;
  await createTableIfMissing(dynamodb, tableName);
  bucket = await createTestBucket(s3, "usage");
});

afterAll(async () => {
  await dynamodb.send(new DeleteTableCommand({ TableName: tableName }));
  await deleteTestBucket(s3, bucket);
  dynamodb.destroy();
  s3.destroy();
});

function service(limits = { maxDocumentsPerProject: 10_000, maxProjectBytes: 256 * 1024 * 1024 }): {
  documents: DocumentService;
  usage: DynamoDBLevelUsage;
  store: S3DocumentStore;
} {
  const store = new S3DocumentStore({ client: s3, bucket });
  const usage = new DynamoDBLevelUsage(dynamodb, tableName);
  const documents = new DocumentService(store, catalogueChangeNotifier(new DynamoDBCatalogueVersions(dynamodb, tableName)), limits, usage);
  return { documents, usage, store };
}

const tenant = IDENTITIES.admin.tenant;

/** A fresh project level holding `n` skills written straight to S3 (one with a PATTERN trigger). */
async function levelOf(n: number): Promise<string> {
  const project = `p-${randomUUID().slice(0, 8)}`;
  const { store } = service();
  await mapWithConcurrency(
    Array.from({ length: n }, (_, i) => i),
    16,
    (i) => store.put(tenant, project, skillPath(`s-${i}`), i === 0 ? patternSkill("seeded") : skillMd()),
  );
  return project;
}

/** Requests of one SKILL.md PUT (with a PATTERN trigger) once the level's counters exist. */
async function putRequests(project: string): Promise<Record<string, number>> {
  const { documents } = service();
  await documents.put(IDENTITIES.admin, tenant, project, skillPath("first"), bytes(skillMd())); // seeds the counters
  counter.reset();
  await documents.put(IDENTITIES.admin, tenant, project, skillPath("patterned"), bytes(patternSkill("new")));
  return counter.snapshot();
}

describe("writes against per-level counters (issue 27)", () => {
  it("a PUT into a level of 1 000 documents makes the same requests as into a level of 10, and lists nothing", async () => {
    const small = await putRequests(await levelOf(10));
    const large = await putRequests(await levelOf(1000));
    expect(large).toEqual(small);
    expect(large["S3.ListObjectsV2"] ?? 0).toBe(0);
    // The one read is the skill's own evals file (same folder), never another skill.
    expect(large["S3.GetObject"] ?? 0).toBeLessThanOrEqual(1);
    expect(large["S3.PutObject"]).toBe(1);
  }, 120_000);

  // Racing writers of one path are counted once each against the entry they replaced (documents
  // exact); which body S3 keeps is not ordered with the entries, so their bodies here have one size.
  it("seeds the counters from one listing and keeps them equal to the level under concurrent writers and deletes", async () => {
    const project = await levelOf(5);
    const { documents, usage, store } = service();
    await documents.put(IDENTITIES.admin, tenant, project, "notes/a.md", bytes("x"));
    await mapWithConcurrency(
      Array.from({ length: 12 }, (_, i) => i),
      12,
      (i) =>
        documents.put(
          IDENTITIES.admin,
          tenant,
          project,
          i % 2 === 0 ? skillPath(`c-${i}`) : `notes/same.md`,
          bytes(i % 2 === 0 ? patternSkill(`c${i}`) : String(i).padStart(8, "y")),
        ),
    );
    await documents.delete(IDENTITIES.admin, tenant, project, skillPath("s-0"));
    const level = await store.list(tenant, project, "");
    const read = await usage.read(tenant, project, "none");
    expect(read?.counts).toEqual({ documents: level.length, bytes: level.reduce((sum, ref) => sum + ref.size, 0), patterns: 6 });
  }, 60_000);

  it("refuses a case-colliding skill name, the document limit and the PATTERN cap from the counters", async () => {
    const project = await levelOf(3);
    const { documents } = service({ maxDocumentsPerProject: 5, maxProjectBytes: 1_000_000 });
    await expect(documents.put(IDENTITIES.admin, tenant, project, skillPath("S-1"), bytes(skillMd()))).rejects.toThrow(
      /collides with the skill 's-1'/,
    );
    await documents.put(IDENTITIES.admin, tenant, project, skillPath("x-1"), bytes(skillMd()));
    await documents.put(IDENTITIES.admin, tenant, project, skillPath("x-2"), bytes(skillMd()));
    const refused = await documents
      .put(IDENTITIES.admin, tenant, project, skillPath("x-3"), bytes(skillMd()))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidDocument);
    expect((refused as InvalidDocument).problems[0]?.message).toMatch(/holds 5 documents, the most allowed \(5\)/);
    // Deleting frees both the count and the name.
    await documents.delete(IDENTITIES.admin, tenant, project, skillPath("s-1"));
    await expect(documents.put(IDENTITIES.admin, tenant, project, skillPath("S-1"), bytes(skillMd()))).resolves.toMatchObject({
      path: skillPath("S-1"),
    });
  }, 60_000);
});
