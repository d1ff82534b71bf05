import { createHash, randomUUID } from "node:crypto";
import { DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTableIfMissing } from "../../infra/local/dynamodb-table.js";
import { DocumentService } from "../../shared/app/document-service.js";
import { DynamoDBDocumentDigests } from "../../shared/catalogue/dynamodb-document-digests.js";
import { DynamoDBLevelUsage } from "../../shared/catalogue/dynamodb-level-usage.js";
import { S3DocumentStore } from "../../shared/documents/s3-document-store.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";
import { SkillManifests } from "../../shared/skills/skill-manifests.js";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { AwsRequestCounter } from "../support/aws-request-counter.js";
import { createTestBucket, deleteTestBucket, testDynamoDbClient, testS3Client } from "../support/aws-clients.js";
import { EmptyLayer } from "../support/steering-harness.js";

/**
 * Issue 32: the Skills extension's manifests take their digests from what the documents API stored
 * with each write, so a manifest of skills written through the API reads no file; a file written
 * around the API is hashed once and its digest stored, so the next manifest reads nothing again.
 */

let dynamodb: DynamoDBClient;
let s3: S3Client;
let tableName: string;
let bucket: string;
const counter = new AwsRequestCounter();
const tenant = IDENTITIES.admin.tenant;
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const sha256 = (data: Uint8Array): string => createHash("sha256").update(data).digest("hex");
const FILES = 20;

beforeAll(async () => {
  dynamodb = counter.instrument(testDynamoDbClient());
  s3 = counter.instrument(testS3Client());
  tableName = `skills-digests-${randomUUID().slice(0, 8)}`;
  await createTableIfMissing(dynamodb, tableName);
  bucket = await createTestBucket(s3, "digests");
});

afterAll(async () => {
  await dynamodb.send(new DeleteTableCommand({ TableName: tableName }));
  await deleteTestBucket(s3, bucket);
  dynamodb.destroy();
  s3.destroy();
});

function parts(): { documents: DocumentService; store: S3DocumentStore; manifests: SkillManifests; loader: SkillLoader } {
  const store = new S3DocumentStore({ client: s3, bucket });
  const documents = new DocumentService(store, undefined, undefined, new DynamoDBLevelUsage(dynamodb, tableName));
  const loader = new SkillLoader({ store, bundled: new EmptyLayer() });
  return { documents, store, loader, manifests: new SkillManifests({ loader, digests: new DynamoDBDocumentDigests(dynamodb, tableName) }) };
}

async function seeded(): Promise<{ project: string; scope: { tenantId: string; projectId: string } }> {
  const project = `p-${randomUUID().slice(0, 8)}`;
  const { documents } = parts();
  await documents.put(
    IDENTITIES.admin,
    tenant,
    project,
    "_vance/skills/forms/SKILL.md",
    bytes("---\ndescription: Fills forms.\n---\nBody.\n"),
  );
  for (let i = 0; i < FILES; i++)
    await documents.put(IDENTITIES.admin, tenant, project, `_vance/skills/forms/refs/r${i}.md`, bytes(`# Ref ${i}\n`));
  return { project, scope: { tenantId: tenant, projectId: project } };
}

describe("skill manifests from stored digests (issue 32)", () => {
  it("builds the manifest of a skill written through the API from one Query, reading no file", async () => {
    // Prepare
    const { scope } = await seeded();
    const { manifests, loader } = parts();
    const [skill] = (await loader.listAvailable(scope)).filter((s) => s.name === "forms");
    counter.reset();

    // Act
    const outcome = await manifests.manifest(scope, skill!);

    // Assess
    expect(counter.snapshot()).toEqual({ "DynamoDB.Query": 1 });
    const rendition = bytes("---\nname: forms\ndescription: Fills forms.\n---\nBody.\n");
    expect(outcome).toEqual({
      manifest: {
        frontmatter: { name: "forms", description: "Fills forms." },
        files: [
          { path: "SKILL.md", size: rendition.byteLength, sha256: sha256(rendition) },
          ...Array.from({ length: FILES }, (_, i) => `refs/r${i}.md`)
            .sort()
            .map((path) => ({
              path,
              size: bytes(`# Ref ${path.slice(6, -3)}\n`).byteLength,
              sha256: sha256(bytes(`# Ref ${path.slice(6, -3)}\n`)),
            })),
        ],
      },
    });
  });

  it("hashes a file written around the API once and stores it: the next manifest, in another container, reads nothing", async () => {
    // Prepare
    const { project, scope } = await seeded();
    const { store } = parts();
    const changed = bytes("# Changed around the API\n");
    await store.put(tenant, project, "_vance/skills/forms/refs/r3.md", changed);
    const first = parts();
    const [skill] = (await first.loader.listAvailable(scope)).filter((s) => s.name === "forms");
    counter.reset();

    // Act
    const hashed = await first.manifests.manifest(scope, skill!);
    const firstRequests = counter.snapshot();
    counter.reset();
    const again = await parts().manifests.manifest(scope, skill!);
    const againRequests = counter.snapshot();

    // Assess
    expect(firstRequests).toEqual({ "DynamoDB.Query": 1, "S3.GetObject": 1, "DynamoDB.UpdateItem": 1 });
    expect(againRequests).toEqual({ "DynamoDB.Query": 1 });
    const entry = { path: "refs/r3.md", size: changed.byteLength, sha256: sha256(changed) };
    expect("manifest" in hashed && hashed.manifest.files).toContainEqual(entry);
    expect(again).toEqual(hashed);
  });
});
