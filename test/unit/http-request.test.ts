import * as z from "zod";
import { describe, expect, it } from "vitest";
import { InvalidRequest } from "../../shared/errors.js";
import { parsePreferWait } from "../../shared/http/prefer-wait.js";
import { header, parseJsonBody, queryParam, readBody } from "../../shared/http/request.js";
import { emptyResponse, jsonResponse } from "../../shared/http/response.js";
import { httpApiV2Request } from "../fixtures/events/http-api-v2-request.js";

const SkillRequest = z.object({
  command: z.enum(["ACTIVATE", "CLEAR", "CLEAR_ALL"]),
  skillName: z.string().optional(),
  oneShot: z.boolean().optional(),
});
const Optional = z.object({ message: z.string().optional() });

describe("parseJsonBody", () => {
  it("parses and validates a JSON body", () => {
    // Prepare
    const event = httpApiV2Request({ body: '{"command":"ACTIVATE","skillName":"code-review","extra":1}' });

    // Act
    const body = parseJsonBody(event, SkillRequest);

    // Assess
    expect(body).toEqual({ command: "ACTIVATE", skillName: "code-review" });
  });

  it("decodes a base64 body", () => {
    // Prepare
    const event = httpApiV2Request({ body: Buffer.from('{"command":"CLEAR_ALL"}').toString("base64"), isBase64Encoded: true });

    // Act
    const body = parseJsonBody(event, SkillRequest);

    // Assess
    expect(body).toEqual({ command: "CLEAR_ALL" });
  });

  it("treats an absent or blank body as {}", () => {
    // Act
    const absent = parseJsonBody(httpApiV2Request(), Optional);
    const blank = parseJsonBody(httpApiV2Request({ body: "  \n" }), Optional);

    // Assess
    expect(absent).toEqual({});
    expect(blank).toEqual({});
  });

  it.each([
    ["malformed JSON", { body: '{"command":' }, "Request body is not valid JSON"],
    ["a schema violation", { body: '{"command":"EXPLODE"}' }, /^Invalid request body: command: /],
    ["a missing required field", { body: "{}" }, /^Invalid request body: command: /],
    ["a JSON array", { body: "[]" }, /^Invalid request body: /],
    ["invalid base64", { body: "***", isBase64Encoded: true }, "Request body is not valid base64"],
    [
      "invalid UTF-8",
      { body: Buffer.from([0x7b, 0xff, 0x7d]).toString("base64"), isBase64Encoded: true },
      "Request body is not valid UTF-8",
    ],
    ["an oversized body", { body: JSON.stringify({ command: "ACTIVATE", skillName: "x".repeat(70_000) }) }, /larger than 65536 bytes/],
  ])("answers 400 INVALID_REQUEST for %s", (_label, overrides, message) => {
    // Prepare
    const event = httpApiV2Request(overrides);

    // Act
    const parse = () => parseJsonBody(event, SkillRequest);

    // Assess
    expect(parse).toThrow(InvalidRequest);
    expect(parse).toThrow(message);
  });

  it("does not let a __proto__ key reach the result's prototype", () => {
    // Prepare
    const event = httpApiV2Request({ body: '{"command":"CLEAR","__proto__":{"polluted":true}}' });

    // Act
    const body = parseJsonBody(event, SkillRequest) as Record<string, unknown>;

    // Assess
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(body.polluted).toBeUndefined();
  });
});

describe("readBody", () => {
  it("returns raw bytes and enforces the cap on the decoded size of a base64 body", () => {
    // Prepare
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252]);
    const event = httpApiV2Request({ body: bytes.toString("base64"), isBase64Encoded: true });

    // Act
    const read = readBody(event, { maxBytes: 6 });
    const tooBig = () => readBody(event, { maxBytes: 5 });

    // Assess
    expect([...read]).toEqual([...bytes]);
    expect(tooBig).toThrow(/larger than 5 bytes/);
  });
});

describe("header and query lookup", () => {
  it("finds headers case-insensitively and query parameters exactly", () => {
    // Prepare
    const event = httpApiV2Request({ headers: { Prefer: "wait=5" }, queryStringParameters: { projectId: "alpha" } });

    // Act
    const prefer = header(event, "prefer");
    const missing = header(event, "authorization");
    const project = queryParam(event, "projectId");
    const inherited = queryParam(event, "toString");

    // Assess
    expect([prefer, missing, project, inherited]).toEqual(["wait=5", undefined, "alpha", undefined]);
  });
});

describe("parsePreferWait", () => {
  it.each([
    ["wait=5", 5],
    ["wait=0", 0],
    ["WAIT = 7", 7],
    ['wait="3"', 3],
    ["wait=20", 20],
    ["wait=21", 20],
    ["wait=9999999999", 20],
    ["wait=99999999999999999999", 20],
    ["respond-async, wait=10", 10],
    ["handling=lenient; x=y, wait=4", 4],
    ["wait=2, wait=9", 2],
  ])("%s → %i", (value, seconds) => {
    // Act
    const parsed = parsePreferWait(value);

    // Assess
    expect(parsed).toBe(seconds);
  });

  it.each([undefined, "", "respond-async", "wait", "wait=", "wait=-1", "wait=2.5", "wait=abc", "wait=1e3", "waiting=5"])(
    "ignores %j (RFC 7240: unknown or malformed preferences are ignored)",
    (value) => {
      // Act
      const parsed = parsePreferWait(value);

      // Assess
      expect(parsed).toBeUndefined();
    },
  );
});

describe("responses", () => {
  it("serializes JSON with safe default headers that callers can extend", () => {
    // Act
    const response = jsonResponse(201, { processId: "p-1" }, { etag: '"abc"' });
    const empty = emptyResponse();

    // Assess
    expect(response).toEqual({
      statusCode: 201,
      headers: {
        "content-type": "application/json; charset=utf-8",
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
        etag: '"abc"',
      },
      body: '{"processId":"p-1"}',
    });
    expect(empty).toEqual({ statusCode: 204, headers: { "cache-control": "no-store" } });
  });
});
