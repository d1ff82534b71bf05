import { request } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FrameInbox, ofType } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";
import { connectWebSocket, WebSocketRejected } from "./support/ws-client.js";
import type { WsTestClient } from "./support/ws-client.js";

/**
 * API.md "Additions (second round)": an open WebSocket is closed with 4001 when its token
 * expires and frames after `exp` are refused; a user may hold only so many sockets at once
 * (429 TOO_MANY_REQUESTS with Retry-After at the upgrade). Over the local stack's gateway.
 */

const TENANT = "acme";
const PROJECT = "live";
const CAP = 3;

let stack: LocalStack;
const open: WsTestClient[] = [];
let previousCap: string | undefined;

beforeAll(async () => {
  // The ws-connect handler reads its limits at module scope, when the stack loads it.
  previousCap = process.env.SKILLS_WS_MAX_CONNECTIONS_PER_USER;
  process.env.SKILLS_WS_MAX_CONNECTIONS_PER_USER = String(CAP);
  process.env.SKILLS_WS_CONNECT_RETRY_AFTER_SECONDS = "11";
  stack = await startLocalStack();
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await stack?.close();
  if (previousCap === undefined) delete process.env.SKILLS_WS_MAX_CONNECTIONS_PER_USER;
  else process.env.SKILLS_WS_MAX_CONNECTIONS_PER_USER = previousCap;
  delete process.env.SKILLS_WS_CONNECT_RETRY_AFTER_SECONDS;
});

async function connect(token: string): Promise<WsTestClient> {
  const client = await connectWebSocket(stack.wsUrl, token);
  open.push(client);
  return client;
}

const refusal = (token: string): Promise<WebSocketRejected> =>
  connectWebSocket(stack.wsUrl, token).then(
    async (client) => {
      await client.close();
      throw new Error("the handshake was accepted");
    },
    (error: unknown) => error as WebSocketRejected,
  );

describe("token expiry", () => {
  it("answers frames while the token lives, then closes the socket with 4001 at exp", async () => {
    // Prepare
    const token = await stack.token({ tenant: TENANT, login: "short", projects: [PROJECT] }, { ttl: 3 });
    const client = await connect(token);
    const inbox = new FrameInbox(client);

    // Act
    client.send({ type: "skill-list", projectId: PROJECT, requestId: "before-exp" });
    const answered = await inbox.next(ofType("skill-list-result"));
    const closed = await client.closed;

    // Assess
    expect(answered).toMatchObject({ requestId: "before-exp" });
    expect(closed).toEqual({ code: 4001, reason: "Token expired" });
  });

  it("closes every socket of the token, also one that keeps sending, and refuses a reconnect with it", async () => {
    // Prepare
    const token = await stack.token({ tenant: TENANT, login: "chatty", projects: [PROJECT] }, { ttl: 3 });
    const quiet = await connect(token);
    const chatty = await connect(token);
    const answers: string[] = [];
    chatty.socket.on("message", (data) => answers.push(String(data)));
    const sender = setInterval(() => {
      if (chatty.socket.readyState === chatty.socket.OPEN) chatty.send({ type: "skill-list", projectId: PROJECT });
    }, 200);

    // Act
    const [quietClosed, chattyClosed] = await Promise.all([quiet.closed, chatty.closed]).finally(() => clearInterval(sender));
    const reconnect = await refusal(token);

    // Assess
    expect(quietClosed.code).toBe(4001);
    expect(chattyClosed.code).toBe(4001);
    expect(answers.every((a) => !a.includes('"error"'))).toBe(true);
    expect(reconnect).toBeInstanceOf(WebSocketRejected);
    expect(reconnect.statusCode).toBe(401);
  });
});

describe("per-identity socket cap", () => {
  it("refuses the socket past the cap with 429 TOO_MANY_REQUESTS and Retry-After, for that user only, until one closes", async () => {
    // Prepare
    const token = await stack.token({ tenant: TENANT, login: "hoarder", projects: [PROJECT] });
    const otherUser = await stack.token({ tenant: TENANT, login: "neighbour", projects: [PROJECT] });
    const sameLoginElsewhere = await stack.token({ tenant: "globex", login: "hoarder", projects: [PROJECT] });
    const held = [];
    for (let i = 0; i < CAP; i++) held.push(await connect(token));

    // Act
    const refused = await refusal(token);
    const neighbour = await connect(otherUser);
    const elsewhere = await connect(sameLoginElsewhere);
    await held[0]!.close();
    // $disconnect runs after the close handshake; the next connect may race it once.
    let again: WsTestClient | WebSocketRejected = await connectWebSocket(stack.wsUrl, token).catch((e: unknown) => e as WebSocketRejected);
    if (again instanceof WebSocketRejected) again = await connect(token);
    else open.push(again);

    // Assess
    expect(refused).toBeInstanceOf(WebSocketRejected);
    expect(refused.statusCode).toBe(429);
    expect(JSON.parse(refused.body)).toEqual({ error: { code: "TOO_MANY_REQUESTS", message: expect.stringContaining(String(CAP)) } });
    expect(neighbour.socket.readyState).toBe(neighbour.socket.OPEN);
    expect(elsewhere.socket.readyState).toBe(elsewhere.socket.OPEN);
    expect(again.socket.readyState).toBe(again.socket.OPEN);
  });

  it("sends Retry-After with the configured seconds on the refused upgrade", async () => {
    // Prepare
    const token = await stack.token({ tenant: TENANT, login: "retry", projects: [PROJECT] });
    for (let i = 0; i < CAP; i++) await connect(token);
    const url = new URL(stack.wsUrl);

    // Act: a raw upgrade, to read the refusal's headers.
    const response = await new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
      const req = request({
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}?token=${encodeURIComponent(token)}`,
        headers: {
          Connection: "Upgrade",
          Upgrade: "websocket",
          "Sec-WebSocket-Version": "13",
          "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        },
      });
      req.on("response", (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] as string | undefined });
      });
      req.on("upgrade", (_res, socket) => {
        socket.destroy();
        reject(new Error("the upgrade was accepted"));
      });
      req.on("error", reject);
      req.end();
    });

    // Assess
    expect(response).toEqual({ status: 429, retryAfter: "11" });
  });
});
