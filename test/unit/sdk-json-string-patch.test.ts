import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Readable } from "node:stream";
import { DynamoDBClient, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";

/** The request body the DynamoDB client sends for an item holding `text`, captured before any network. */
async function bodyFor(text: string): Promise<string> {
  let body = "";
  const client = new DynamoDBClient({
    region: "us-east-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
    endpoint: "http://127.0.0.1:9",
    requestHandler: {
      handle: async (request: { body?: unknown }) => {
        body = typeof request.body === "string" ? request.body : new TextDecoder().decode(request.body as Uint8Array);
        return { response: { statusCode: 200, headers: {}, body: Readable.from(["{}"]) } };
      },
    },
  });
  await client.send(new PutItemCommand({ TableName: "table", Item: { pk: { S: "k" }, text: { S: text } } }));
  client.destroy();
  return body;
}

// patches/@smithy+core+*.patch: the SDK's JSON writer escapes strings with JSON.stringify instead of
// a per-character loop (a cold instance ran that loop interpreted: 7–15 ms per 20 KB result).
describe("the patched SDK JSON string writer", () => {
  it("writes every string as JSON.stringify spells it: quotes, backslashes, controls, non-ASCII, pairs and lone surrogates", async () => {
    // Prepare
    const controls = Array.from({ length: 32 }, (_, c) => String.fromCharCode(c)).join("");
    const texts = [
      'plain "quoted" \\ back\\slash',
      controls,
      "\u007f del, é ü ß, 中文, \u2028\u2029",
      "emoji \ud83d\ude00 pair",
      "lone high \ud83d end",
      "lone low \ude00 end",
      "x".repeat(70_000),
      JSON.stringify({ prompt: "line\n".repeat(500), catalog: [{ name: "a", description: 'say "hi"' }] }),
    ];

    // Act
    const bodies = await Promise.all(texts.map((text) => bodyFor(text)));

    // Assess
    bodies.forEach((body, i) => {
      expect(body).toContain(`"text":{"S":${JSON.stringify(texts[i])}}`);
      expect((JSON.parse(body) as { Item: { text: { S: string } } }).Item.text.S).toBe(texts[i]);
    });
  });

  it("is applied to both builds of @smithy/core the bundles and Node can load (npm ci runs patch-package)", () => {
    const entry = createRequire(import.meta.url).resolve("@smithy/core");
    const root = entry.slice(0, entry.lastIndexOf("/dist-cjs/"));
    for (const file of ["dist-cjs/submodules/protocols/index.js", "dist-es/submodules/protocols/json/codec-v2/JsonShapeSerializer2.js"])
      expect(readFileSync(`${root}/${file}`, "utf8")).toContain("skills-service patch");
  });
});
