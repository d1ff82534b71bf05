import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Readable } from "node:stream";
import { DynamoDBClient, GetItemCommand } from "@aws-sdk/client-dynamodb";
import { afterEach, describe, expect, it } from "vitest";

interface Sent {
  hostname: string;
  port: number | undefined;
  headers: Record<string, string>;
}

/** A DynamoDB client whose requests are captured before any network, answering one item. */
function capturingClient(config: { endpoint?: string }): { client: DynamoDBClient; sent: Sent[] } {
  const sent: Sent[] = [];
  const item = JSON.stringify({ Item: { pk: { S: "k" }, n: { N: "7" } } });
  const client = new DynamoDBClient({
    region: "us-east-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
    ...config,
    requestHandler: {
      handle: async (request: Sent) => {
        sent.push({ hostname: request.hostname, port: request.port, headers: { ...request.headers } });
        return { response: { statusCode: 200, headers: { "content-type": "application/x-amz-json-1.0" }, body: Readable.from([item]) } };
      },
    },
  });
  return { client, sent };
}

const ENDPOINT_ENV = "AWS_ENDPOINT_URL_DYNAMODB";
const savedEndpointEnv = process.env[ENDPOINT_ENV];
afterEach(() => {
  if (savedEndpointEnv === undefined) delete process.env[ENDPOINT_ENV];
  else process.env[ENDPOINT_ENV] = savedEndpointEnv;
});

// patches/@smithy+core+*.patch: the schema serde and endpoint middlewares build their per-request
// context on the client's config (Object.create) instead of spreading its ~50 properties (~25 µs
// each time, three times a request). What the spread guaranteed must still hold.
describe("the patched SDK per-request config", () => {
  it("serializes, signs and deserializes with the client's config and the command's context", async () => {
    // Prepare
    const { client, sent } = capturingClient({ endpoint: "http://127.0.0.1:8123" });

    // Act
    const output = await client.send(new GetItemCommand({ TableName: "table", Key: { pk: { S: "k" } } }));
    client.destroy();

    // Assess
    expect(output.Item).toEqual({ pk: { S: "k" }, n: { N: "7" } });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ hostname: "127.0.0.1", port: 8123 });
    expect(sent[0]?.headers["x-amz-target"]).toBe("DynamoDB_20120810.GetItem");
    expect(sent[0]?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=test\/\d{8}\/us-east-1\/dynamodb\/aws4_request/);
  });

  it("takes an endpoint from the environment per request without writing it into the client's config", async () => {
    // Prepare
    process.env[ENDPOINT_ENV] = "http://127.0.0.1:8124";
    const { client, sent } = capturingClient({});

    // Act
    await client.send(new GetItemCommand({ TableName: "table", Key: { pk: { S: "k" } } }));
    await client.send(new GetItemCommand({ TableName: "table", Key: { pk: { S: "k" } } }));
    const config = client.config as unknown as { isCustomEndpoint?: boolean };
    client.destroy();

    // Assess
    expect(sent.map((s) => `${s.hostname}:${s.port}`)).toEqual(["127.0.0.1:8124", "127.0.0.1:8124"]);
    expect(config.isCustomEndpoint).toBe(false);
  });

  it("is applied to both builds of @smithy/core the bundles and Node can load (npm ci runs patch-package)", () => {
    const entry = createRequire(import.meta.url).resolve("@smithy/core");
    const root = entry.slice(0, entry.lastIndexOf("/dist-cjs/"));
    for (const file of [
      "dist-cjs/submodules/schema/index.js",
      "dist-cjs/submodules/endpoints/index.js",
      "dist-es/submodules/schema/middleware/schemaSerializationMiddleware.js",
      "dist-es/submodules/schema/middleware/schemaDeserializationMiddleware.js",
      "dist-es/submodules/endpoints/middleware-endpoint/endpointMiddleware.js",
    ]) {
      const source = readFileSync(`${root}/${file}`, "utf8");
      expect(source).toContain("Object.create(config)");
      expect(source).not.toMatch(/\{\s*\.\.\.config\s*\}|\.\.\.config,\s*\.\.\.context/);
    }
  });
});
