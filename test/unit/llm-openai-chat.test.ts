import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLlmPort } from "../../shared/wiring/create-llm-port.js";
import { DisabledLlm } from "../../shared/llm/llm-port.js";
import { OpenAiChatLlm } from "../../shared/llm/openai-chat-llm.js";
import type { Logger } from "../../shared/support/logger.js";

interface Received {
  method: string | undefined;
  url: string | undefined;
  authorization: string | undefined;
  contentType: string | undefined;
  body: unknown;
}

type Reply = (response: ServerResponse) => void;

/** A local chat-completions endpoint: records each request and answers with the next reply. */
let server: Server;
let baseUrl: string;
const received: Received[] = [];
let reply: Reply = () => undefined;

const completion =
  (content: string): Reply =>
  (response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        id: "cmpl-1",
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      }),
    );
  };

const readBody = async (request: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

beforeAll(async () => {
  server = createServer((request, response) => {
    void readBody(request).then((text) => {
      received.push({
        method: request.method,
        url: request.url,
        authorization: request.headers.authorization,
        contentType: request.headers["content-type"],
        body: JSON.parse(text) as unknown,
      });
      reply(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received.length = 0;
  reply = completion("{}");
});

const recorder = (): Pick<Logger, "warn"> & { warnings: Array<{ message: string; extra: Record<string, unknown>[] }> } => {
  const warnings: Array<{ message: string; extra: Record<string, unknown>[] }> = [];
  return { warnings, warn: (message, ...extra) => warnings.push({ message, extra }) };
};

const llmWith = (logger: Pick<Logger, "warn">, timeoutMs = 2_000): OpenAiChatLlm =>
  new OpenAiChatLlm({ url: baseUrl, model: "judge-1", apiKey: "sk-test-key", timeoutMs, logger });

const INPUT = { judge: "Has a development task of the user been completed?", task: "add login", output: "Done. Tests pass." };

describe("OpenAiChatLlm", () => {
  it("posts a chat completion in JSON mode and returns the parsed answer", async () => {
    // Prepare
    reply = completion('{"fire": true, "reason": "code changed"}');
    const logger = recorder();

    // Act
    const answer = await llmWith(logger).callForJson("completion-guard", "Evaluate the guard condition.", INPUT);

    // Assess
    expect(answer).toEqual({ fire: true, reason: "code changed" });
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request).toMatchObject({
      method: "POST",
      url: "/v1/chat/completions",
      authorization: "Bearer sk-test-key",
      contentType: "application/json",
    });
    const body = request?.body as { model: string; messages: Array<{ role: string; content: string }>; response_format: unknown };
    expect(body.model).toBe("judge-1");
    expect(body.response_format).toEqual({ type: "json_object" });
    expect(body.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(body.messages[0]?.content).toMatch(/^Evaluate the guard condition\./);
    // OpenAI's JSON mode refuses requests whose messages never mention JSON.
    expect(body.messages[0]?.content).toContain("JSON");
    expect(JSON.parse(body.messages[1]?.content ?? "")).toEqual(INPUT);
    expect(logger.warnings).toEqual([]);
  });

  it("accepts an answer wrapped in a Markdown code fence", async () => {
    // Prepare
    reply = completion('```json\n{"fire": false}\n```');

    // Act
    const answer = await llmWith(recorder()).callForJson("g", "Judge.", {});

    // Assess
    expect(answer).toEqual({ fire: false });
  });

  it("answers null with a warning when the content is not JSON", async () => {
    // Prepare
    reply = completion("Yes, the task is complete.");
    const logger = recorder();

    // Act
    const answer = await llmWith(logger).callForJson("completion-guard", "Judge.", INPUT);

    // Assess
    expect(answer).toBeNull();
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]?.extra[0]).toMatchObject({ llmCall: "completion-guard", reason: "message content is not JSON" });
  });

  it.each([
    [
      "a 500",
      ((response) => {
        response.writeHead(500, { "content-type": "application/json" });
        response.end('{"error": {"message": "upstream exploded"}}');
      }) as Reply,
      "http status",
    ],
    [
      "a 401",
      ((response) => {
        response.writeHead(401);
        response.end();
      }) as Reply,
      "http status",
    ],
    [
      "a body that is not JSON",
      ((response) => {
        response.writeHead(200, { "content-type": "text/html" });
        response.end("<html>gateway</html>");
      }) as Reply,
      "response is not JSON",
    ],
    [
      "a completion without choices",
      ((response) => {
        response.writeHead(200, { "content-type": "application/json" });
        response.end('{"choices": []}');
      }) as Reply,
      "response has no message content",
    ],
  ])("answers null with a warning for %s, never logging the key or the input", async (_, failing, reason) => {
    // Prepare
    reply = failing;
    const logger = recorder();

    // Act
    const answer = await llmWith(logger).callForJson("completion-guard", "Judge.", { secretInput: "customer data" });

    // Assess
    expect(answer).toBeNull();
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]?.extra[0]).toMatchObject({ reason });
    expect(JSON.stringify(logger.warnings)).not.toMatch(/sk-test-key|customer data/);
  });

  it("answers null after its timeout when the endpoint is slow", async () => {
    // Prepare
    reply = (response) => setTimeout(() => completion('{"fire": true}')(response), 3_000).unref();
    const logger = recorder();

    // Act
    const started = performance.now();
    const answer = await llmWith(logger, 200).callForJson("completion-guard", "Judge.", INPUT);
    const elapsedMs = performance.now() - started;

    // Assess
    expect(answer).toBeNull();
    expect(elapsedMs).toBeLessThan(2_500);
    expect(logger.warnings[0]?.extra[0]).toMatchObject({ reason: "timeout", timeoutMs: 200 });
  });

  it("answers null when the caller aborts", async () => {
    // Prepare
    reply = (response) => setTimeout(() => completion('{"fire": true}')(response), 3_000).unref();
    const logger = recorder();
    const controller = new AbortController();

    // Act
    const pending = llmWith(logger).callForJson("g", "Judge.", {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const answer = await pending;

    // Assess
    expect(answer).toBeNull();
    expect(logger.warnings[0]?.extra[0]).toMatchObject({ reason: "aborted by caller" });
  });

  it("refuses a response larger than its cap", async () => {
    // Prepare
    reply = completion(JSON.stringify({ padding: "x".repeat(10_000) }));
    const logger = recorder();
    const llm = new OpenAiChatLlm({ url: baseUrl, model: "m", timeoutMs: 2_000, logger, maxResponseBytes: 1_000 });

    // Act
    const answer = await llm.callForJson("g", "Judge.", {});

    // Assess
    expect(answer).toBeNull();
    expect(logger.warnings[0]?.extra[0]).toMatchObject({ reason: "response too large" });
  });

  it("answers null when nothing listens at the URL", async () => {
    // Prepare
    const logger = recorder();
    const llm = new OpenAiChatLlm({ url: "http://127.0.0.1:9", model: "m", timeoutMs: 2_000, logger });

    // Act
    const answer = await llm.callForJson("g", "Judge.", {});

    // Assess
    expect(answer).toBeNull();
    expect(logger.warnings[0]?.extra[0]).toMatchObject({ reason: "request failed" });
  });
});

describe("createLlmPort", () => {
  it("is disabled without SKILLS_LLM_URL: every call answers null without any request", async () => {
    // Act
    const llm = createLlmPort({});
    const answer = await llm.callForJson("completion-guard", "Judge.", INPUT);

    // Assess
    expect(llm).toBeInstanceOf(DisabledLlm);
    expect(answer).toBeNull();
    expect(received).toEqual([]);
  });

  it("uses URL, model and key from the environment", async () => {
    // Prepare
    reply = completion('{"ok": 1}');
    const llm = createLlmPort(
      { SKILLS_LLM_URL: `${baseUrl}/`, SKILLS_LLM_MODEL: "gpt-test", SKILLS_LLM_API_KEY: "sk-env" },
      { logger: recorder() },
    );

    // Act
    const answer = await llm.callForJson("g", "Judge.", {});

    // Assess
    expect(answer).toEqual({ ok: 1 });
    expect(received[0]).toMatchObject({ url: "/v1/chat/completions", authorization: "Bearer sk-env" });
    expect((received[0]?.body as { model: string }).model).toBe("gpt-test");
  });

  it("resolves the key from the secret ARN once, and retries after a failed resolution", async () => {
    // Prepare
    reply = completion('{"ok": 1}');
    const arns: string[] = [];
    let failNext = true;
    const resolveSecret = async (arn: string): Promise<string> => {
      arns.push(arn);
      if (failNext) {
        failNext = false;
        throw new Error("extension not ready");
      }
      return "sk-from-secret";
    };
    const logger = recorder();
    const arn = "arn:aws:secretsmanager:eu-central-1:123456789012:secret:llm-key";
    const llm = createLlmPort(
      { SKILLS_LLM_URL: baseUrl, SKILLS_LLM_MODEL: "m", SKILLS_LLM_API_KEY_SECRET_ARN: arn },
      { resolveSecret, logger },
    );

    // Act
    const failed = await llm.callForJson("g", "Judge.", {});
    const first = await llm.callForJson("g", "Judge.", {});
    const second = await llm.callForJson("g", "Judge.", {});

    // Assess
    expect([failed, first, second]).toEqual([null, { ok: 1 }, { ok: 1 }]);
    expect(arns).toEqual([arn, arn]);
    expect(received.map((r) => r.authorization)).toEqual(["Bearer sk-from-secret", "Bearer sk-from-secret"]);
    expect(logger.warnings).toHaveLength(1);
  });
});
