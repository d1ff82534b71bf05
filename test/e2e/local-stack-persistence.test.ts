import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { afterAll, describe, expect, it } from "vitest";
import { awsClients } from "../../shared/aws/aws-clients.js";
import { awsConfig, requireConfig } from "../../shared/config/config.js";
import { startLocalStack } from "./support/local-stack.js";
import type { HandlerOverrides, LocalStack } from "./support/local-stack.js";

/**
 * `--data DIR`: DynamoDB (dynalite on LevelDB) and the documents bucket (saved on shutdown,
 * uploaded on start) survive a restart. A test function writes and reads both through the
 * resources the stack configured, so the check runs over HTTP like any client.
 */

const handlers: HandlerOverrides = {
  "http-processes": async (event: APIGatewayProxyEventV2) => {
    const config = { ...requireConfig(process.env, ["tableName", "bucketName"]), ...awsConfig(process.env) };
    const { dynamodb, s3 } = awsClients(config);
    if (event.requestContext.http.method === "POST") {
      const id = event.pathParameters?.sessionId ?? "";
      await dynamodb.send(
        new PutItemCommand({
          TableName: config.tableName,
          Item: { pk: { S: `e2e#${id}` }, sk: { S: "state" }, value: { S: event.body ?? "" } },
        }),
      );
      await s3.send(
        new PutObjectCommand({ Bucket: config.bucketName, Key: `e2e/${id}.md`, Body: `document of ${id}`, ContentType: "text/markdown" }),
      );
      return { statusCode: 201, body: "{}" };
    }
    const id = event.pathParameters?.processId ?? "";
    const item = await dynamodb.send(
      new GetItemCommand({ TableName: config.tableName, Key: { pk: { S: `e2e#${id}` }, sk: { S: "state" } } }),
    );
    const document = await s3.send(new GetObjectCommand({ Bucket: config.bucketName, Key: `e2e/${id}.md` })).then(
      async (o) => ({ body: await o.Body?.transformToString(), contentType: o.ContentType }),
      () => null,
    );
    return { value: item.Item?.value?.S ?? null, document };
  },
};

const dataDirs: string[] = [];
let stack: LocalStack | undefined;

afterAll(async () => {
  await stack?.close();
  await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function restartable(dataDir: string | undefined): Promise<LocalStack> {
  await stack?.close();
  stack = await startLocalStack({ handlers, preloadHandlers: false, ...(dataDir === undefined ? {} : { dataDir }) });
  return stack;
}

async function write(target: LocalStack, id: string, value: string): Promise<number> {
  const response = await fetch(`${target.httpUrl}/brain/demo/sessions/${id}/processes`, {
    method: "POST",
    headers: { authorization: `Bearer ${target.devToken}`, "content-type": "application/json" },
    body: value,
  });
  return response.status;
}

async function read(target: LocalStack, id: string): Promise<unknown> {
  const response = await fetch(`${target.httpUrl}/brain/demo/processes/${id}`, { headers: { authorization: `Bearer ${target.devToken}` } });
  return response.json();
}

describe("local stack --data", () => {
  it("keeps DynamoDB items and documents across a restart", async () => {
    // Prepare
    const dataDir = await mkdtemp(join(tmpdir(), "skills-local-"));
    dataDirs.push(dataDir);
    const first = await restartable(dataDir);
    expect(await write(first, "s-1", '{"n":1}')).toBe(201);

    // Act
    const second = await restartable(dataDir);
    const after = await read(second, "s-1");

    // Assess
    expect(after).toEqual({ value: '{"n":1}', document: { body: "document of s-1", contentType: "text/markdown" } });
  });

  it("starts empty again without --data", async () => {
    // Prepare
    const first = await restartable(undefined);
    expect(await write(first, "s-2", '{"n":2}')).toBe(201);

    // Act
    const second = await restartable(undefined);
    const after = await read(second, "s-2");

    // Assess
    expect(after).toEqual({ value: null, document: null });
  });
});
