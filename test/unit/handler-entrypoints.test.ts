import type { SQSEvent } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { documentsRoutes } from "../../functions/http-documents/documents-routes.js";
import { processesRoutes } from "../../functions/http-processes/processes-routes.js";
import { skillsRoutes } from "../../functions/http-skills/skills-routes.js";
import { steerRoutes } from "../../functions/http-steer/steer-routes.js";
import { toolsRoutes } from "../../functions/http-tools/tools-routes.js";
import type { HttpRoute } from "../../functions/_shared/http-route.js";
import { HTTP_ROUTES } from "../../infra/api-routes.js";
import type { FunctionName } from "../../infra/api-routes.js";
import { appEnvironment, runtimeFromEnv } from "../../shared/wiring/app-from-env.js";
import { httpEvent, lambdaContextFixture } from "../fixtures/events/http-handler-event.js";

type Handler = (event: unknown, context?: unknown) => Promise<{ statusCode?: number; body?: string; batchItemFailures?: unknown }>;

// Nothing listens there: these tests must never reach a network.
const ENV = {
  SKILLS_TABLE_NAME: "skills-test",
  SKILLS_BUCKET_NAME: "skills-docs-test",
  SKILLS_LANE_QUEUE_URL: "http://127.0.0.1:9/000000000000/lane.fifo",
  AWS_REGION: "eu-central-1",
  AWS_ENDPOINT_URL: "http://127.0.0.1:9",
  AWS_ACCESS_KEY_ID: "test",
  AWS_SECRET_ACCESS_KEY: "test",
  POWERTOOLS_LOG_LEVEL: "SILENT",
  POWERTOOLS_METRICS_DISABLED: "true",
};

const HTTP_FUNCTIONS = ["http-skills", "http-processes", "http-steer", "http-documents", "http-tools"] as const;
const handlers = new Map<string, Handler>();

beforeAll(async () => {
  for (const [name, value] of Object.entries(ENV)) vi.stubEnv(name, value);
  for (const name of [...HTTP_FUNCTIONS, "lane-worker"]) {
    const module = (await import(`../../functions/${name}/handler.ts`)) as { handler: Handler };
    handlers.set(name, module.handler);
  }
});

afterAll(() => {
  vi.unstubAllEnvs();
});

describe("function entry points (functions/<name>/handler.ts)", () => {
  const served: Record<(typeof HTTP_FUNCTIONS)[number], { method: string; path: string }> = {
    "http-skills": { method: "GET", path: "/brain/acme/skills/effective" },
    "http-processes": { method: "GET", path: "/brain/acme/processes/p1" },
    "http-steer": { method: "POST", path: "/brain/acme/processes/p1/skill" },
    "http-documents": { method: "GET", path: "/brain/acme/projects/_tenant/documents" },
    "http-tools": { method: "POST", path: "/brain/acme/processes/p1/tools/manual_list" },
  };

  it.each(HTTP_FUNCTIONS)(
    "%s loads from the environment and answers a request without a token with 401 in API.md's shape",
    async (name) => {
      // Prepare
      const handler = handlers.get(name)!;
      const event = httpEvent({ ...served[name], as: { unauthenticated: "Authorization header is missing" } });

      // Act
      const result = await handler(event, lambdaContextFixture());

      // Assess
      expect(result.statusCode).toBe(401);
      expect(JSON.parse(result.body ?? "")).toEqual({
        error: {
          code: "UNAUTHENTICATED",
          message: expect.stringMatching(/^Unauthenticated: Authorization header is missing; send 'Authorization: Bearer <token>'/),
        },
      });
    },
  );

  it("http-skills answers /health", async () => {
    // Prepare
    const handler = handlers.get("http-skills")!;

    // Act
    const result = await handler(httpEvent({ method: "GET", path: "/health", as: "none" }));

    // Assess
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body ?? "")).toEqual({ status: "ok" });
  });

  it("lane-worker reports a record that does not decode as failed instead of crashing", async () => {
    // Prepare
    const handler = handlers.get("lane-worker")!;
    const event: SQSEvent = {
      Records: [
        {
          messageId: "m-1",
          receiptHandle: "r",
          body: "not json",
          attributes: {
            ApproximateReceiveCount: "1",
            SentTimestamp: "0",
            SenderId: "x",
            ApproximateFirstReceiveTimestamp: "0",
            MessageGroupId: "acme#p1",
            MessageDeduplicationId: "d",
            SequenceNumber: "1",
          },
          messageAttributes: {},
          md5OfBody: "",
          eventSource: "aws:sqs",
          eventSourceARN: "arn:aws:sqs:eu-central-1:000000000000:lane.fifo",
          awsRegion: "eu-central-1",
        },
      ],
    };

    // Act
    const result = await handler(event);

    // Assess
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: "m-1" }]);
  });
});

describe("route tables", () => {
  const none = {} as never;
  const tables: Record<(typeof HTTP_FUNCTIONS)[number], HttpRoute[]> = {
    "http-skills": skillsRoutes({ app: none }),
    "http-processes": processesRoutes({ app: none }),
    "http-steer": steerRoutes({ app: none }),
    "http-documents": documentsRoutes({ documents: none }),
    "http-tools": toolsRoutes({ app: none, tools: none }),
  };

  it.each(HTTP_FUNCTIONS)(
    "%s serves exactly the routes infra/api-routes.ts sends to it, /health and /openapi.json alone public",
    (name) => {
      // Prepare
      const expected = HTTP_ROUTES.filter((r) => r.function === (name as FunctionName)).map(
        (r) => `${r.method} ${r.path}${r.public ? " public" : ""}`,
      );

      // Act
      const served = tables[name].map((r) => `${r.method} ${r.pattern}${r.public ? " public" : ""}`);

      // Assess
      expect(served.sort()).toEqual(expected.sort());
    },
  );
});

describe("runtimeFromEnv", () => {
  it("turns a resource this function was not granted into a port that fails when used, naming the variable", async () => {
    // Prepare
    const resources = runtimeFromEnv({ SKILLS_TABLE_NAME: "t", AWS_REGION: "eu-west-1" });

    // Act
    const failure = await resources.documents.get("acme", "_tenant", "a.md").then(
      () => undefined,
      (error: unknown) => error,
    );

    // Assess
    expect(String(failure)).toMatch(/SKILLS_BUCKET_NAME is not set/);
    expect(resources.environment).toMatchObject({ tableName: "t", bucketName: undefined, region: "eu-west-1" });
  });

  it("reads the WebSocket callback URL, and per-service endpoints before the shared one", () => {
    // Prepare
    const env = { SKILLS_WS_CALLBACK_URL: "https://ws.example/live", AWS_ENDPOINT_URL: "http://all", AWS_ENDPOINT_URL_S3: "http://s3" };

    // Act
    const environment = appEnvironment(env);

    // Assess
    expect(environment.webSocketCallbackUrl).toBe("https://ws.example/live");
    expect(environment.endpoints).toEqual({ s3: "http://s3", dynamodb: "http://all", sqs: "http://all" });
  });
});
