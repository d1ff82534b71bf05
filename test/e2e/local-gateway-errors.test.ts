import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STATUS_BY_CODE } from "../../shared/http/error-table.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * Every answer the local gateway gives by itself is in API.md's error shape with a code of the
 * table (API.md "Additions (second round)": NOT_FOUND, METHOD_NOT_ALLOWED, PAYLOAD_TOO_LARGE, …):
 * unknown routes, wrong methods, oversized bodies and headers, requests node:http cannot parse.
 * Raw sockets send what fetch would refuse or normalise.
 */

let stack: LocalStack;
let token: string;

beforeAll(async () => {
  stack = await startLocalStack();
  token = await stack.token({ tenant: "demo", login: "dev", projects: ["demo"], roles: ["tenant-admin"] });
});

afterAll(async () => {
  await stack.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `request` as bytes and reads the whole answer (the gateway closes after refusing). */
function raw(request: string | Buffer): Promise<RawAnswer> {
  const { hostname, port } = new URL(stack.httpUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString("utf8");
      const split = text.indexOf("\r\n\r\n");
      if (split === -1) return;
      const [statusLine = "", ...lines] = text.slice(0, split).split("\r\n");
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
      );
      const body = text.slice(split + 4);
      if (Buffer.byteLength(body) < Number(headers["content-length"] ?? 0)) return;
      socket.destroy();
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body });
    });
    socket.on("error", reject);
    socket.write(request);
  });
}

const expectTableError = (
  answer: { status: number; body: string; headers: Record<string, string> },
  status: number,
  code: string,
): void => {
  expect(answer.status).toBe(status);
  expect(answer.headers["content-type"]).toMatch(/^application\/json/);
  expect(JSON.parse(answer.body)).toEqual({ error: { code, message: expect.any(String) } });
  expect(STATUS_BY_CODE[code as keyof typeof STATUS_BY_CODE]).toBe(status);
};

const asRaw = async (response: Response): Promise<RawAnswer> => ({
  status: response.status,
  headers: Object.fromEntries(response.headers),
  body: await response.text(),
});

describe("local gateway answers in API.md's error shape", () => {
  it.each([
    ["an unknown path", "GET", "/nothing/here"],
    ["an unknown path under /brain", "GET", "/brain/demo/nothing"],
    ["the root", "GET", "/"],
    ["a path one segment too long", "GET", "/brain/demo/skills/effective/x/y/z"],
  ])("404 NOT_FOUND for %s", async (_label, method, path) => {
    // Act
    const answer = await asRaw(await fetch(`${stack.httpUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` } }));

    // Assess
    expectTableError(answer, 404, "NOT_FOUND");
  });

  it.each([
    ["DELETE on the skill listing", "DELETE", "/brain/demo/skills/effective?projectId=demo"],
    ["PATCH on a document", "PATCH", "/brain/demo/projects/demo/documents/a.md"],
    ["PUT on a process", "PUT", "/brain/demo/processes/p-1"],
    ["POST on /health", "POST", "/health"],
    ["OPTIONS on the problems route", "OPTIONS", "/brain/demo/skills/problems"],
  ])("405 METHOD_NOT_ALLOWED with Allow for %s, with or without a token", async (_label, method, path) => {
    // Act
    const withToken = await asRaw(await fetch(`${stack.httpUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` } }));
    const withoutToken = await asRaw(await fetch(`${stack.httpUrl}${path}`, { method }));

    // Assess
    expectTableError(withToken, 405, "METHOD_NOT_ALLOWED");
    expectTableError(withoutToken, 405, "METHOD_NOT_ALLOWED");
    expect(withToken.headers.allow).toMatch(/^[A-Z]+(, [A-Z]+)*$/);
    expect(withToken.headers.allow).not.toContain(method);
  });

  it("413 PAYLOAD_TOO_LARGE for a body declared past 10 MB, before it is sent", async () => {
    // Act
    const answer = await raw(
      `PUT /brain/demo/projects/demo/documents/big.txt HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Length: ${11 * 1024 * 1024}\r\n\r\n`,
    );

    // Assess
    expectTableError(answer, 413, "PAYLOAD_TOO_LARGE");
  });

  it("413 PAYLOAD_TOO_LARGE for a chunked body that grows past 10 MB", async () => {
    // Prepare
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    const head = `PUT /brain/demo/projects/demo/documents/big.txt HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const body = Buffer.concat([
      Buffer.from(head),
      ...Array.from({ length: 11 }, () => Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")])),
      Buffer.from("0\r\n\r\n"),
    ]);

    // Act
    const answer = await raw(body);

    // Assess
    expectTableError(answer, 413, "PAYLOAD_TOO_LARGE");
  });

  it.each([
    ["one huge header", (filler: string) => `X-Filler: ${filler}\r\n`],
    [
      "many small headers",
      (filler: string) => Array.from({ length: filler.length / 100 }, (_, i) => `X-F${i}: ${"b".repeat(90)}\r\n`).join(""),
    ],
    ["a huge cookie", (filler: string) => `Cookie: a=${filler}\r\n`],
  ])("413 PAYLOAD_TOO_LARGE for headers past API Gateway's 10 KB quota: %s", async (_label, headers) => {
    // Act
    const answer = await raw(
      `GET /brain/demo/skills/effective?projectId=demo HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n${headers("a".repeat(20_000))}\r\n`,
    );

    // Assess
    expectTableError(answer, 413, "PAYLOAD_TOO_LARGE");
  });

  it("413 PAYLOAD_TOO_LARGE for a request line (URL) past the quota", async () => {
    // Act
    const answer = await raw(`GET /brain/demo/skills/effective?projectId=${"a".repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);

    // Assess
    expectTableError(answer, 413, "PAYLOAD_TOO_LARGE");
  });

  it.each([
    ["a header line without a colon", "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nNoColonHere\r\n\r\n"],
    ["a garbage request line", "\u0001\u0002 nonsense\r\n\r\n"],
    ["an invalid header name", "GET /health HTTP/1.1\r\nBad Header: x\r\n\r\n"],
    ["a bad Content-Length", "PUT /brain/demo/projects/demo/documents/a.md HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n"],
  ])("400 INVALID_REQUEST for %s node:http cannot parse", async (_label, request) => {
    // Act
    const answer = await raw(request);

    // Assess
    expectTableError(answer, 400, "INVALID_REQUEST");
  });

  it.each(["/brain/demo/skills/effective/%zz", "/brain/demo/projects/demo/documents/%", "/brain/%E0%A4%A/skills/effective"])(
    "400 INVALID_REQUEST, never a 500, for malformed percent-encoding %s",
    async (path) => {
      // Act
      const answer = await raw(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);

      // Assess
      expectTableError(answer, 400, "INVALID_REQUEST");
    },
  );

  it("still answers a normal request on a fresh connection after the refusals", async () => {
    // Act
    const response = await fetch(`${stack.httpUrl}/brain/demo/skills/effective?projectId=demo`, {
      headers: { authorization: `Bearer ${token}` },
    });

    // Assess
    expect(response.status).toBe(200);
  });
});
