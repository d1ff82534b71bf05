import { randomUUID } from "node:crypto";
import { DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSkillsApp } from "../../shared/app/skills-app.js";
import { catalogueChangeNotifier } from "../../shared/catalogue/document-change-notifier.js";
import { DynamoDBCatalogueVersions } from "../../shared/catalogue/dynamodb-catalogue-versions.js";
import { DynamoDBProcessVersionsReader } from "../../shared/catalogue/dynamodb-process-versions-reader.js";
import { mapWithConcurrency } from "../../shared/documents/cascade-layers.js";
import { S3DocumentStore } from "../../shared/documents/s3-document-store.js";
import { InMemoryLane } from "../../shared/lanes/in-memory-lane.js";
import { DynamoDBProcessStore } from "../../shared/processes/dynamodb-process-store.js";
import { InMemoryRequestStore } from "../../shared/processes/in-memory-request-store.js";
import { createTableIfMissing } from "../../infra/local/dynamodb-table.js";
import { AwsRequestCounter } from "../support/aws-request-counter.js";
import { createTestBucket, deleteTestBucket, testDynamoDbClient, testS3Client } from "../support/aws-clients.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";
import { EmptyLayer, FakeRenderer } from "../support/steering-harness.js";

/**
 * The files of a skill are cached with the warm catalogue: a level of many skills, each with
 * sibling files, still composes a steady turn without any S3 request, and a new file shows up
 * on the next turn for the one re-listing of its level.
 */

const BOB = { login: "bob" };
const SKILLS = 100;
const SIBLINGS = ["references/forms.md", "references/api.md", "scripts/fill.py", "assets/template.docx", "LICENSE.txt"];

let dynamodb: DynamoDBClient;
let s3: S3Client;
let tableName: string;
let bucket: string;
const counter = new AwsRequestCounter();

beforeAll(async () => {
  dynamodb = counter.instrument(testDynamoDbClient());
  s3 = counter.instrument(testS3Client());
  tableName = `skills-files-${randomUUID().slice(0, 8)}`;
  await createTableIfMissing(dynamodb, tableName);
  bucket = await createTestBucket(s3, "skill-files");
});

afterAll(async () => {
  await dynamodb.send(new DeleteTableCommand({ TableName: tableName }));
  await deleteTestBucket(s3, bucket);
  dynamodb.destroy();
  s3.destroy();
});

async function setup() {
  const tenant = `files-${randomUUID().slice(0, 8)}`;
  const store = new S3DocumentStore({ client: s3, bucket });
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
  await store.put(tenant, "_tenant", "_vance/recipes/open.yaml", "engine: ford\ndefaultActiveSkills: [skill-0, skill-1]\n");
  const documents: [string, string][] = [];
  for (let i = 0; i < SKILLS; i++) {
    documents.push([skillPath(`skill-${i}`), skillMd({ title: `skill ${i}`, body: `See references/forms.md of skill ${i}.` })]);
    for (const sibling of SIBLINGS) documents.push([`_vance/skills/skill-${i}/${sibling}`, `${sibling} of skill ${i}\n`]);
  }
  await mapWithConcurrency(documents, 16, ([path, body]) => store.put(tenant, "web", path, body));
  const process = await app.spawn(tenant, BOB, { sessionId: "s1", recipe: "open", projectId: "web" });
  const compose = (requestId: string) =>
    app.turns.compose({ tenant, processId: process.processId, requestId, user: BOB }, { turnId: `t-${requestId}`, message: "hello" });
  return { tenant, store, versions, app, compose };
}

describe("skill files with the warm catalogue over DynamoDB and S3", () => {
  it(`composes a steady turn over ${SKILLS} skills with ${SIBLINGS.length} files each with no S3 request, the files listed`, async () => {
    // Prepare
    const { compose } = await setup();
    await compose("cold");

    // Act
    counter.reset();
    const { result } = await compose("steady");
    const steady = counter.snapshot();

    // Assess
    expect(steady).toEqual({ "DynamoDB.BatchGetItem": 1, "DynamoDB.PutItem": 1 });
    expect(result.tools).toContain("skill_read_file");
    expect(result.skillSection).toContain("- references/forms.md (");
    expect(result.skillSection.match(/^Files of this skill/gm)).toHaveLength(2);
  });

  it("shows a new file on the next turn for one S3 list of its level and no read", async () => {
    // Prepare
    const { tenant, store, versions, compose, app } = await setup();
    await compose("warm-up");
    await store.put(tenant, "web", "_vance/skills/skill-0/references/new.md", "new");
    await catalogueChangeNotifier(versions)({ tenant, project: "web", path: "_vance/skills/skill-0/references/new.md" });

    // Act
    counter.reset();
    const { result } = await compose("after-new-file");
    const edited = counter.snapshot();
    const detail = await app.resolveEffective(tenant, BOB, "web", "skill-0");

    // Assess
    expect(result.skillSection).toContain("- references/new.md (3 bytes)");
    expect(edited).toEqual({ "DynamoDB.BatchGetItem": 1, "DynamoDB.PutItem": 1, "S3.ListObjectsV2": 1 });
    expect(detail.files?.map((f) => f.path)).toEqual([...SIBLINGS, "references/new.md"].sort());
  });
});
