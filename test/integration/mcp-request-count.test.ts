import { randomUUID } from "node:crypto";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import type { S3Client } from "@aws-sdk/client-s3";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTableIfMissing } from "../../infra/local/dynamodb-table.js";
import { createMcpServer } from "../../shared/app/mcp/mcp-server.js";
import { createSkillsApp } from "../../shared/app/skills-app.js";
import { DocumentService } from "../../shared/app/document-service.js";
import { catalogueChangeNotifier } from "../../shared/catalogue/document-change-notifier.js";
import { DynamoDBDocumentDigests } from "../../shared/catalogue/dynamodb-document-digests.js";
import { DynamoDBLevelUsage } from "../../shared/catalogue/dynamodb-level-usage.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";
import { SkillManifests } from "../../shared/skills/skill-manifests.js";
import * as z from "zod/v4";
import { DynamoDBCatalogueVersions } from "../../shared/catalogue/dynamodb-catalogue-versions.js";
import { S3DocumentStore } from "../../shared/documents/s3-document-store.js";
import { InMemoryLane } from "../../shared/lanes/in-memory-lane.js";
import { DynamoDBProcessStore } from "../../shared/processes/dynamodb-process-store.js";
import { InMemoryRequestStore } from "../../shared/processes/in-memory-request-store.js";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { AwsRequestCounter } from "../support/aws-request-counter.js";
import { createTestBucket, deleteTestBucket, testDynamoDbClient, testS3Client } from "../support/aws-clients.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";
import { EmptyLayer, FakeRenderer } from "../support/steering-harness.js";

/** What MCP calls cost against S3 and DynamoDB once the catalogue is warm (issue 14 left this unmeasured). */

let dynamodb: DynamoDBClient;
let s3: S3Client;
let tableName: string;
let bucket: string;
const counter = new AwsRequestCounter();

beforeAll(async () => {
  dynamodb = counter.instrument(testDynamoDbClient());
  s3 = counter.instrument(testS3Client());
  tableName = `skills-mcp-${randomUUID().slice(0, 8)}`;
  await createTableIfMissing(dynamodb, tableName);
  bucket = await createTestBucket(s3, "mcp");
});

afterAll(async () => {
  await dynamodb.send(new DeleteTableCommand({ TableName: tableName }));
  await deleteTestBucket(s3, bucket);
});

describe("MCP calls on a warm catalogue", () => {
  it("lists and renders prompts with no S3 request and one DynamoDB read per call", async () => {
    // Prepare
    const tenant = IDENTITIES.alice.tenant;
    const store = new S3DocumentStore({ client: s3, bucket });
    const app = createSkillsApp({
      documents: store,
      bundled: new EmptyLayer(),
      processes: new DynamoDBProcessStore(dynamodb, tableName),
      requests: new InMemoryRequestStore(),
      lane: new InMemoryLane(),
      renderer: new FakeRenderer(),
      catalogueVersions: new DynamoDBCatalogueVersions(dynamodb, tableName),
      logger: { warn: () => undefined },
    });
    for (let i = 0; i < 20; i++)
      await store.put(tenant, "proj1", skillPath(`skill-${i}`), skillMd({ title: `skill ${i}`, body: `Body ${i}.` }));
    const server = createMcpServer(
      {
        app,
        renderer: new FakeRenderer(),
        tools: { invoke: () => Promise.reject(new Error("no tools without a process")), serves: () => false },
      },
      { identity: IDENTITIES.alice, user: { login: "alice" }, projectId: "proj1" },
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "count", version: "1.0.0" });
    await client.connect(clientSide);
    await client.listPrompts();

    // Act
    counter.reset();
    const listed = await client.listPrompts();
    const afterList = counter.snapshot();
    counter.reset();
    const prompt = await client.getPrompt({ name: "skill-7" });
    const afterGet = counter.snapshot();
    await client.close();

    // Assess
    expect(listed.prompts).toHaveLength(20);
    expect(JSON.stringify(prompt.messages)).toContain("Body 7.");
    expect(afterList).toEqual({ "DynamoDB.BatchGetItem": 1 });
    expect(afterGet).toEqual({ "DynamoDB.BatchGetItem": 1 });
  });

  it("lists skills through the Skills extension with one Query per skill and no S3 request when the documents API stored the digests (issue 32)", async () => {
    // Prepare
    const tenant = IDENTITIES.alice.tenant;
    const store = new S3DocumentStore({ client: s3, bucket });
    const documents = new DocumentService(
      store,
      catalogueChangeNotifier(new DynamoDBCatalogueVersions(dynamodb, tableName)),
      undefined,
      new DynamoDBLevelUsage(dynamodb, tableName),
    );
    const app = createSkillsApp({
      documents: store,
      bundled: new EmptyLayer(),
      processes: new DynamoDBProcessStore(dynamodb, tableName),
      requests: new InMemoryRequestStore(),
      lane: new InMemoryLane(),
      renderer: new FakeRenderer(),
      catalogueVersions: new DynamoDBCatalogueVersions(dynamodb, tableName),
      logger: { warn: () => undefined },
    });
    for (let i = 0; i < 20; i++) {
      await documents.put(
        IDENTITIES.admin,
        tenant,
        "proj2",
        skillPath(`skill-${i}`),
        new TextEncoder().encode(skillMd({ title: `skill ${i}`, body: `Body ${i}.` })),
      );
      await documents.put(IDENTITIES.admin, tenant, "proj2", `_vance/skills/skill-${i}/refs/a.md`, new TextEncoder().encode(`ref ${i}`));
    }
    const manifests = new SkillManifests({
      loader: new SkillLoader(app.sources),
      digests: new DynamoDBDocumentDigests(dynamodb, tableName),
    });
    const server = createMcpServer(
      {
        app,
        renderer: new FakeRenderer(),
        tools: { invoke: () => Promise.reject(new Error("no tools without a process")), serves: () => false },
        manifests,
      },
      { identity: IDENTITIES.alice, user: { login: "alice" }, projectId: "proj2" },
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "count", version: "1.0.0" });
    await client.connect(clientSide);
    await client.listPrompts();

    // Act
    counter.reset();
    const listed = (
      await client.request({ method: "skills/list", params: {} }, z.looseObject({ skills: z.array(z.looseObject({ uri: z.string() })) }))
    ).skills;
    const afterList = counter.snapshot();
    await client.close();

    // Assess
    expect(listed).toHaveLength(20);
    expect(afterList).toEqual({ "DynamoDB.BatchGetItem": 1, "DynamoDB.Query": 20 });
  });
});
