import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * Issue 28 "DNS rebinding reaches the local dev token": a page of evil.example whose name resolves
 * to 127.0.0.1 sends `Host: evil.example`. The local stack answers only its own host names, and
 * `/mcp` refuses a browser's foreign `Origin` (a request without one, as CLI and SDK clients send,
 * passes). fetch cannot set `Host`, so these requests go through node:http.
 */

let stack: LocalStack;
let token: string;

interface RawReply {
  status: number;
  body: string;
}

function send(path: string, headers: Record<string, string>, method = "GET", body?: string): Promise<RawReply> {
  const url = new URL(path, stack.httpUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const ownHost = (): string => new URL(stack.httpUrl).host;
const mcpInitialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "e2e", version: "1" } },
});
const mcp = (headers: Record<string, string>): Promise<RawReply> =>
  send(
    "/brain/acme/mcp?projectId=p1",
    {
      host: ownHost(),
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    "POST",
    mcpInitialize,
  );

beforeAll(async () => {
  stack = await startLocalStack();
  token = await stack.token({ tenant: "acme", login: "alice", projects: ["p1"] });
});

afterAll(async () => {
  await stack?.close();
});

describe("the local stack answers only its own host names", () => {
  it.each(["evil.example", "evil.example:3000", "127.0.0.1.evil.example", "localhost.", "[::1].evil.example"])(
    "refuses Host %j with 403, the dev token never in the answer",
    async (host) => {
      // Act
      const config = await send("/console/config.json", { host });
      const api = await send("/brain/acme/skills/effective?projectId=p1", { host, authorization: `Bearer ${token}` });

      // Assess
      expect(config.status).toBe(403);
      expect(config.body).not.toContain(stack.devToken);
      expect(JSON.parse(config.body).error.code).toBe("FORBIDDEN");
      expect(api.status).toBe(403);
    },
  );

  it("serves its own names: 127.0.0.1, localhost and [::1], with or without the port, in any case", async () => {
    // Prepare
    const hosts = [`127.0.0.1:${stack.port}`, `localhost:${stack.port}`, "localhost", `[::1]:${stack.port}`, `LOCALHOST:${stack.port}`];

    // Act
    const replies = await Promise.all(hosts.map(async (host) => [host, await send("/console/config.json", { host })] as const));

    // Assess
    for (const [host, reply] of replies) {
      expect({ host, status: reply.status }).toEqual({ host, status: 200 });
      expect(JSON.parse(reply.body).devToken).toBe(stack.devToken);
    }
  });

  it("refuses a WebSocket upgrade for another host name and accepts its own", async () => {
    // Act
    const outcome = (host: string): Promise<string> =>
      new Promise((resolve) => {
        const socket = new WebSocket(`${stack.wsUrl}?token=${token}`, { headers: { host } });
        socket.on("open", () => {
          socket.close();
          resolve("open");
        });
        socket.on("unexpected-response", (_req, res) => resolve(`status ${res.statusCode ?? 0}`));
        socket.on("error", (error) => resolve(`error ${error.message}`));
      });
    const evil = await outcome("evil.example");
    const own = await outcome(ownHost());

    // Assess
    expect(evil).toBe("status 403");
    expect(own).toBe("open");
  });
});

describe("/mcp validates Origin (MCP Streamable HTTP transport)", () => {
  it.each(["http://evil.example", "http://evil.example:3000", "null", "not a url", "https://localhost.evil.example"])(
    "refuses Origin %j with 403 before any MCP message is read",
    async (origin) => {
      // Act
      const reply = await mcp({ origin });

      // Assess
      expect(reply.status).toBe(403);
      expect(JSON.parse(reply.body).error.code).toBe("FORBIDDEN");
    },
  );

  it("accepts a request without Origin (CLI and SDK clients) and one from its own origin", async () => {
    // Act
    const none = await mcp({});
    const own = await mcp({ origin: `http://${ownHost()}` });

    // Assess
    expect(none.status, none.body).toBe(200);
    expect(JSON.parse(none.body).result.serverInfo).toBeDefined();
    expect(own.status, own.body).toBe(200);
  });
});
