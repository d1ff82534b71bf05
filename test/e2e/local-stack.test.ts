import { randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import {
  ApiGatewayManagementApiClient,
  GetConnectionCommand,
  GoneException,
  PayloadTooLargeException,
  PostToConnectionCommand,
} from "@aws-sdk/client-apigatewaymanagementapi";
import { SendMessageCommand } from "@aws-sdk/client-sqs";
import type { APIGatewayProxyEventV2, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { identityFromEvent } from "../../shared/auth/authorizer-context.js";
import { awsClients } from "../../shared/aws/aws-clients.js";
import { sqsClient } from "../../shared/aws/aws-sqs-client.js";
import { awsConfig, ENV, requireConfig } from "../../shared/config/config.js";
import { startLocalStack } from "./support/local-stack.js";
import type { HandlerOverrides, LocalStack } from "./support/local-stack.js";
import { waitFor } from "./support/wait-for.js";
import { connectWebSocket, WebSocketRejected } from "./support/ws-client.js";

/**
 * The local stack itself, driven over HTTP and WebSocket only, with recording test functions in
 * place of the real ones (the real authorizer stays). The real handlers have their own e2e tests.
 */

interface Invocation {
  fn: string;
  event: Record<string, unknown>;
}

const invocations: Invocation[] = [];
const record = (fn: string, event: unknown): void => {
  invocations.push({ fn, event: event as Record<string, unknown> });
};
const invocationsOf = (fn: string): Invocation[] => invocations.filter((i) => i.fn === fn);

// Handlers read the stack's configuration from the environment at call time, like real ones at module scope.
const clients = () => {
  const config = { ...requireConfig(process.env, ["laneQueueUrl"]), ...awsConfig(process.env) };
  return { config, ...awsClients(config), sqs: sqsClient(config) };
};
const managementClient = () =>
  new ApiGatewayManagementApiClient({ endpoint: process.env[ENV.webSocketCallbackUrl], region: awsConfig(process.env).region });

const handlers: HandlerOverrides = {
  "http-skills": async (event: APIGatewayProxyEventV2) => {
    record("http-skills", event);
    if (event.rawPath.endsWith("/problems")) return { problems: [] };
    if (event.rawPath.endsWith("/active")) throw new Error("boom");
    return {
      statusCode: 200,
      headers: { "content-type": "application/json", "x-test": "yes" },
      cookies: ["seen=1; Path=/"],
      body: JSON.stringify({ ok: true }),
    };
  },
  "http-documents": async (event: APIGatewayProxyEventV2) => {
    record("http-documents", event);
    return { statusCode: 200, body: "{}" };
  },
  "http-steer": async (event: APIGatewayProxyEventV2) => {
    record("http-steer", event);
    const { config, sqs } = clients();
    const body = JSON.parse(event.body ?? "{}") as { requestId: string };
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: config.laneQueueUrl,
        MessageBody: event.body ?? "{}",
        MessageGroupId: event.pathParameters?.processId ?? "none",
        MessageDeduplicationId: body.requestId,
      }),
    );
    return { statusCode: 202, body: JSON.stringify({ requestId: body.requestId, status: "QUEUED" }) };
  },
  "lane-worker": async (event: SQSEvent): Promise<SQSBatchResponse> => {
    record("lane-worker", event);
    const failures: SQSBatchResponse["batchItemFailures"] = [];
    for (const r of event.Records) {
      const message = JSON.parse(r.body) as { requestId: string; connectionId: string; failOnce?: boolean };
      const receiveCount = Number(r.attributes.ApproximateReceiveCount);
      if (message.failOnce && receiveCount === 1) {
        failures.push({ itemIdentifier: r.messageId });
        continue;
      }
      const data = JSON.stringify({ type: "lane-done", requestId: message.requestId, receiveCount });
      await managementClient().send(new PostToConnectionCommand({ ConnectionId: message.connectionId, Data: Buffer.from(data) }));
    }
    return { batchItemFailures: failures };
  },
  "ws-connect": async (event: { queryStringParameters?: Record<string, string> }) => {
    record("ws-connect", event);
    return event.queryStringParameters?.refuse === "1" ? { statusCode: 403, body: "refused by $connect" } : { statusCode: 200 };
  },
  // Answers through the management endpoint like the real one; the route response is discarded (no route response on AWS).
  "ws-default": async (event: { body: string; requestContext: { connectionId: string } }) => {
    record("ws-default", event);
    const { connectionId } = event.requestContext;
    const data = JSON.stringify({ echo: event.body, connectionId });
    await managementClient().send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: Buffer.from(data) }));
    return { statusCode: 200, body: "route response" };
  },
  "ws-disconnect": async (event: unknown) => {
    record("ws-disconnect", event);
    return { statusCode: 200 };
  },
};

let stack: LocalStack;
let token: string;

beforeAll(async () => {
  stack = await startLocalStack({ handlers, preloadHandlers: false, lane: { retryDelaySeconds: 0 } });
  token = await stack.token({ tenant: "demo", login: "dev", projects: ["demo"], roles: ["tenant-admin"] });
});

afterAll(async () => {
  await stack?.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${stack.httpUrl}${path}`, { headers });
const rawGet = (path: string, headers: Record<string, string>) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const { hostname, port } = new URL(stack.httpUrl);
    const request = httpRequest({ hostname, port, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
    });
    request.on("error", reject);
    request.end();
  });
const auth = () => ({ authorization: `Bearer ${token}` });

describe("local stack over HTTP", () => {
  it("answers /health with 200 {status: ok} while the lane poller runs", async () => {
    // Act
    const response = await get("/health");

    // Assess
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("runs the authorizer for a request without a token, as deployed (no identity source), and hands the function the request marked unauthenticated", async () => {
    // Act
    await get("/brain/demo/skills/effective?projectId=demo");

    // Assess
    // The real handlers answer such a request 401 with what is missing (api-authorization.test.ts).
    const event = invocationsOf("http-skills").at(-1)?.event as unknown as APIGatewayProxyEventV2 & {
      requestContext: { authorizer?: { lambda?: Record<string, string> } };
    };
    expect(event.rawPath).toBe("/brain/demo/skills/effective");
    expect(event.requestContext.authorizer?.lambda).toEqual({ authenticated: "false", reason: "Authorization header is missing" });
  });

  it("hands the route function an API Gateway payload 2.0 event with the authorizer's identity", async () => {
    // Prepare
    const headers = { ...auth(), "X-Custom": "v1", cookie: "a=1; b=2", "user-agent": "e2e-test" };

    // Act
    const response = await get("/brain/demo/skills/effective/my%2Dskill?projectId=demo&tag=a&tag=b", headers);

    // Assess
    expect(response.status).toBe(200);
    const event = invocationsOf("http-skills").at(-1)?.event as unknown as APIGatewayProxyEventV2;
    expect(event).toMatchObject({
      version: "2.0",
      routeKey: "GET /brain/{tenant}/skills/effective/{name}",
      rawPath: "/brain/demo/skills/effective/my%2Dskill",
      rawQueryString: "projectId=demo&tag=a&tag=b",
      cookies: ["a=1", "b=2"],
      queryStringParameters: { projectId: "demo", tag: "a,b" },
      pathParameters: { tenant: "demo", name: "my-skill" },
      isBase64Encoded: false,
      requestContext: {
        accountId: expect.any(String),
        apiId: expect.any(String),
        domainName: new URL(stack.httpUrl).host,
        http: {
          method: "GET",
          path: "/brain/demo/skills/effective/my%2Dskill",
          protocol: "HTTP/1.1",
          sourceIp: "127.0.0.1",
          userAgent: "e2e-test",
        },
        requestId: response.headers.get("apigw-requestid"),
        routeKey: "GET /brain/{tenant}/skills/effective/{name}",
        stage: "$default",
        time: expect.stringMatching(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/),
        timeEpoch: expect.any(Number),
      },
    });
    expect(event.headers).toMatchObject({ "x-custom": "v1", authorization: `Bearer ${token}`, "x-forwarded-proto": "http" });
    expect(event.headers.cookie).toBeUndefined();
    expect(event.body).toBeUndefined();
    expect(identityFromEvent(event)).toEqual({ tenant: "demo", login: "dev", projects: ["demo"], roles: ["tenant-admin"] });
  });

  it("writes the function's structured result: status, headers, cookies and body", async () => {
    // Act
    const response = await get("/brain/demo/skills/effective?projectId=demo", auth());

    // Assess
    expect(response.status).toBe(200);
    expect(response.headers.get("x-test")).toBe("yes");
    expect(response.headers.getSetCookie()).toEqual(["seen=1; Path=/"]);
    expect(await response.json()).toEqual({ ok: true });
  });

  it("reads a result without statusCode as 200 JSON (payload 2.0 shorthand)", async () => {
    // Act
    const response = await get("/brain/demo/skills/problems?projectId=demo", auth());

    // Assess
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual({ problems: [] });
  });

  it("answers 500 INTERNAL when the function throws", async () => {
    // Act
    const response = await get("/brain/demo/skills/active?processId=p-1", auth());

    // Assess
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: { code: "INTERNAL", message: expect.any(String) } });
  });

  it("passes text bodies as text and binary bodies base64-encoded, with the greedy path parameter", async () => {
    // Prepare
    const url = `${stack.httpUrl}/brain/demo/projects/demo/documents/_vance/skills/x/SKILL.md`;
    const bytes = Buffer.from([0, 255, 1, 2]);

    // Act
    const text = await fetch(url, { method: "PUT", headers: { ...auth(), "content-type": "text/markdown" }, body: "# Title\n" });
    const textEvent = invocationsOf("http-documents").at(-1)?.event as unknown as APIGatewayProxyEventV2;
    const binary = await fetch(url, { method: "PUT", headers: { ...auth(), "content-type": "application/octet-stream" }, body: bytes });
    const binaryEvent = invocationsOf("http-documents").at(-1)?.event as unknown as APIGatewayProxyEventV2;

    // Assess
    expect([text.status, binary.status]).toEqual([200, 200]);
    expect(textEvent).toMatchObject({
      routeKey: "PUT /brain/{tenant}/projects/{project}/documents/{path+}",
      pathParameters: { tenant: "demo", project: "demo", path: "_vance/skills/x/SKILL.md" },
      body: "# Title\n",
      isBase64Encoded: false,
    });
    expect(binaryEvent).toMatchObject({ body: bytes.toString("base64"), isBase64Encoded: true });
  });

  it("answers 404 for an unknown route and 400 INVALID_REQUEST for an encoded dot segment", async () => {
    // Act
    const unknown = await get("/nothing/here", auth());
    // fetch would resolve the dot segment before sending; node:http sends the path as written.
    const traversal = await rawGet("/brain/demo/projects/demo/documents/%2e%2e/secret", auth());

    // Assess
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: { code: "NOT_FOUND", message: expect.any(String) } });
    expect(traversal.status).toBe(400);
    expect(JSON.parse(traversal.body)).toMatchObject({ error: { code: "INVALID_REQUEST" } });
  });

  it("refuses a body over API Gateway's 10 MB limit with 413", async () => {
    // Prepare
    const body = Buffer.alloc(10 * 1024 * 1024 + 1, 0x61);

    // Act
    const response = await fetch(`${stack.httpUrl}/brain/demo/projects/demo/documents/big.txt`, {
      method: "PUT",
      headers: { ...auth(), "content-type": "text/plain" },
      body,
    });

    // Assess
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: "PAYLOAD_TOO_LARGE" } });
  });
});

describe("local stack over WebSocket", () => {
  it("refuses the handshake with 401 without a token or with a bad one", async () => {
    // Act
    const missing = await connectWebSocket(stack.wsUrl).catch((error: unknown) => error);
    const bad = await connectWebSocket(stack.wsUrl, "not-a-jwt").catch((error: unknown) => error);

    // Assess
    expect(missing).toBeInstanceOf(WebSocketRejected);
    expect((missing as WebSocketRejected).statusCode).toBe(401);
    expect(JSON.parse((missing as WebSocketRejected).body)).toMatchObject({ error: { code: "UNAUTHENTICATED" } });
    expect(bad).toBeInstanceOf(WebSocketRejected);
    expect((bad as WebSocketRejected).statusCode).toBe(401);
  });

  it("invokes $connect, $default per message and $disconnect in order with API Gateway WebSocket events", async () => {
    // Prepare
    const start = invocations.length;
    const client = await connectWebSocket(stack.wsUrl, token);

    // Act
    client.send({ type: "ping" });
    const reply = await client.nextJson<{ echo: string; connectionId: string }>();
    client.send({ type: "pong" });
    const second = await client.nextJson<{ echo: string }>();
    await client.close(1000, "bye");
    await waitFor(() => invocationsOf("ws-disconnect").some((i) => invocations.indexOf(i) >= start), 5000, "$disconnect");

    // Assess
    const own = invocations.slice(start).filter((i) => i.fn.startsWith("ws-"));
    expect(own.map((i) => i.fn)).toEqual(["ws-connect", "ws-default", "ws-default", "ws-disconnect"]);
    const [connect, message, , disconnect] = own.map((i) => i.event);
    expect(connect).toMatchObject({
      queryStringParameters: { token },
      isBase64Encoded: false,
      requestContext: {
        routeKey: "$connect",
        eventType: "CONNECT",
        connectionId: reply.connectionId,
        messageDirection: "IN",
        identity: { sourceIp: "127.0.0.1" },
      },
    });
    expect(message).toMatchObject({
      body: JSON.stringify({ type: "ping" }),
      isBase64Encoded: false,
      requestContext: { routeKey: "$default", eventType: "MESSAGE", connectionId: reply.connectionId, messageId: expect.any(String) },
    });
    expect(disconnect).toMatchObject({
      requestContext: {
        routeKey: "$disconnect",
        eventType: "DISCONNECT",
        connectionId: reply.connectionId,
        disconnectStatusCode: 1000,
        disconnectReason: "bye",
      },
    });
    for (const event of [connect, message, disconnect]) expect(identityFromEvent(event).login).toBe("dev");
    expect(reply.echo).toBe(JSON.stringify({ type: "ping" }));
    // The first message's route response ("route response") never reached the client.
    expect(second.echo).toBe(JSON.stringify({ type: "pong" }));
  });

  it("refuses the handshake with the status the $connect function returns", async () => {
    // Act
    const refused = await connectWebSocket(`${stack.wsUrl}?refuse=1&token=${encodeURIComponent(token)}`).catch((error: unknown) => error);

    // Assess
    expect(refused).toBeInstanceOf(WebSocketRejected);
    expect((refused as WebSocketRejected).statusCode).toBe(403);
  });

  it("closes a connection that sends a message over 128 KB with 1009", async () => {
    // Prepare
    const client = await connectWebSocket(stack.wsUrl, token);

    // Act
    client.send("x".repeat(128 * 1024 + 1));
    const closed = await client.closed;

    // Assess
    expect(closed.code).toBe(1009);
  });

  it("delivers PostToConnection from the SDK, refuses over 128 KB, and answers GoneException once the connection is closed", async () => {
    // Prepare
    const client = await connectWebSocket(stack.wsUrl, token);
    client.send("who am i");
    const { connectionId } = await client.nextJson<{ connectionId: string }>();
    const management = new ApiGatewayManagementApiClient({ endpoint: stack.httpUrl, region: stack.region, credentials: stack.credentials });

    // Act
    await management.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: Buffer.from('{"type":"pushed"}') }));
    const pushed = await client.nextJson();
    const info = await management.send(new GetConnectionCommand({ ConnectionId: connectionId }));
    const tooLarge = await management
      .send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: Buffer.alloc(128 * 1024 + 1, 0x61) }))
      .catch((error: unknown) => error);
    await client.close();
    const gone = await management
      .send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: Buffer.from("late") }))
      .catch((error: unknown) => error);

    // Assess
    expect(pushed).toEqual({ type: "pushed" });
    expect(info.Identity?.SourceIp).toBe("127.0.0.1");
    expect(info.ConnectedAt).toBeInstanceOf(Date);
    expect(tooLarge).toBeInstanceOf(PayloadTooLargeException);
    expect(gone).toBeInstanceOf(GoneException);
    expect((gone as GoneException).$metadata.httpStatusCode).toBe(410);
  });
});

describe("local stack lane", () => {
  it("invokes the lane worker like an event source mapping, redelivers a reported failure, and its push reaches the client", async () => {
    // Prepare
    const client = await connectWebSocket(stack.wsUrl, token);
    client.send("hello");
    const { connectionId } = await client.nextJson<{ connectionId: string }>();
    const requestId = randomUUID();
    const start = invocationsOf("lane-worker").length;

    // Act
    const accepted = await fetch(`${stack.httpUrl}/brain/demo/processes/p-1/skill`, {
      method: "POST",
      headers: { ...auth(), "content-type": "application/json" },
      body: JSON.stringify({ requestId, connectionId, failOnce: true }),
    });
    const done = await client.nextJson<{ type: string; requestId: string; receiveCount: number }>(15_000);
    await client.close();

    // Assess
    expect(accepted.status).toBe(202);
    expect(done).toEqual({ type: "lane-done", requestId, receiveCount: 2 });
    const deliveries = invocationsOf("lane-worker")
      .slice(start)
      .flatMap((i) => (i.event as unknown as SQSEvent).Records)
      .filter((r) => r.body.includes(requestId));
    expect(deliveries).toHaveLength(2);
    expect(deliveries[0]).toMatchObject({
      eventSource: "aws:sqs",
      eventSourceARN: expect.stringMatching(/^arn:aws:sqs:.*\.fifo$/),
      attributes: { MessageGroupId: "p-1", MessageDeduplicationId: requestId, ApproximateReceiveCount: "1" },
    });
  });
});
