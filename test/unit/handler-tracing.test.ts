import { laneMessage } from "../support/lane-message-fixture.js";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { Tracer } from "@aws-lambda-powertools/tracer";
import { afterEach, describe, expect, it } from "vitest";
import { lazyTracing, powertoolsTracing, traced, tracingHooks, tracingWanted, UNTRACED } from "../../functions/_shared/tracing.js";
import type { TracerPort } from "../../functions/_shared/tracing.js";
import { runtimeFromEnv } from "../../shared/wiring/app-from-env.js";
import { connectionPushOnFirstUse, processEventsFromEnv } from "../../shared/wiring/lane-worker-from-env.js";
import { sqsFromEnv } from "../../shared/wiring/sqs-from-env.js";
import { sqsOnFirstUse } from "../../shared/wiring/sqs-on-first-use.js";
import type { ClientInstrumentation } from "../../shared/aws/aws-clients.js";
import { InMemoryConnectionStore } from "../../shared/connections/in-memory-connection-store.js";
import { errorFrame } from "../../shared/connections/server-frames.js";

/** Records what the hooks do to segments, in order, instead of talking to the X-Ray SDK. */
function recordingTracer(enabled = true, withParent = true) {
  const events: string[] = [];
  let current = "lambda";
  const segment = (name: string) => ({
    name,
    addNewSubsegment: (child: string) => {
      events.push(`open ${child}`);
      return { ...segment(child), close: () => events.push(`close ${child}`) };
    },
  });
  const parent = segment("lambda");
  const port = {
    isTracingEnabled: () => enabled,
    getSegment: () => (withParent ? parent : undefined),
    setSegment: (s: { name: string }) => {
      current = s.name;
      events.push(`current ${s.name}`);
    },
    annotateColdStart: () => events.push(`annotate ColdStart on ${current}`),
    addServiceNameAnnotation: () => events.push(`annotate Service on ${current}`),
    addErrorAsMetadata: (error: Error) => events.push(`error ${error.message} on ${current}`),
    captureAWSv3Client: <C>(client: C) => {
      events.push("capture client");
      return client;
    },
  } as unknown as TracerPort;
  return { port, events };
}

describe("tracing hooks", () => {
  it("runs each invocation in its own subsegment with ColdStart and Service annotations, then restores Lambda's segment", async () => {
    // Prepare
    const { port, events } = recordingTracer();
    const handler = traced(tracingHooks(port), "http-skills", async (event: { n: number }) => event.n * 2);

    // Act
    const result = await handler({ n: 21 }, undefined);

    // Assess
    expect(result).toBe(42);
    expect(events).toEqual([
      "open ## http-skills",
      "current ## http-skills",
      "annotate ColdStart on ## http-skills",
      "annotate Service on ## http-skills",
      "close ## http-skills",
      "current lambda",
    ]);
  });

  it("records a failure on the subsegment and rethrows it unchanged", async () => {
    // Prepare
    const { port, events } = recordingTracer();
    const failure = new Error("table unavailable");
    const handler = traced(tracingHooks(port), "lane-worker", async () => {
      throw failure;
    });

    // Act
    const thrown = await handler({}, undefined).catch((error: unknown) => error);

    // Assess
    expect(thrown).toBe(failure);
    expect(events).toContain("error table unavailable on ## lane-worker");
    expect(events.slice(-2)).toEqual(["close ## lane-worker", "current lambda"]);
  });

  it("records a thrown non-Error as an Error with its text", async () => {
    // Prepare
    const { port, events } = recordingTracer();

    // Act
    const thrown = await tracingHooks(port)
      .invocation("ws-default", () => Promise.reject("plain string"))
      .catch((error: unknown) => error);

    // Assess
    expect(thrown).toBe("plain string");
    expect(events).toContain("error plain string on ## ws-default");
  });

  it.each([
    ["tracing is disabled", false, true],
    ["there is no Lambda segment to attach to", true, false],
  ])("touches no segment when %s", async (_case, enabled, withParent) => {
    // Prepare
    const { port, events } = recordingTracer(enabled, withParent);

    // Act
    const result = await tracingHooks(port).invocation("http-steer", async () => "ok");

    // Assess
    expect(result).toBe("ok");
    expect(events).toEqual([]);
  });

  it("hands SDK clients to the tracer's AWS v3 capture", () => {
    // Prepare
    const { port, events } = recordingTracer();
    const client = new DynamoDBClient({ region: "us-east-1" });

    // Act
    const instrumented = tracingHooks(port).instrument(client);

    // Assess
    expect(instrumented).toBe(client);
    expect(events).toEqual(["capture client"]);
  });
});

describe("tracer loaded only where it traces", () => {
  it.each([
    ["outside Lambda (tests, tools, the local stack)", {}, false],
    ["inside Lambda", { AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x" }, true],
    [
      "inside Lambda with POWERTOOLS_TRACE_ENABLED=false",
      { AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x", POWERTOOLS_TRACE_ENABLED: "FALSE" },
      false,
    ],
    ["under SAM local", { AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x", AWS_SAM_LOCAL: "true" }, false],
    ["under Amplify's mock", { AWS_EXECUTION_ENV: "AWS_Lambda_amplify-mock" }, false],
  ])("wants tracing %s: %s", (_case, env, wanted) => {
    // Act
    const result = tracingWanted(env);

    // Assess
    expect(result).toBe(wanted);
  });

  it("untraced, a handler is returned as it is and clients are left alone", () => {
    // Prepare
    const handler = async (event: number) => event + 1;
    const client = new DynamoDBClient({ region: "us-east-1" });
    const before = client.middlewareStack.identify();

    // Act
    const tracer = powertoolsTracing("skills-test", {});
    const wrapped = traced(tracer, "http-skills", handler);
    tracer.instrument(client);

    // Assess
    expect(tracer).toBe(UNTRACED);
    expect(wrapped).toBe(handler);
    expect(client.middlewareStack.identify()).toEqual(before);
  });

  it("captures the clients built while the tracer loads before the first invocation runs, later ones at once", async () => {
    // Prepare
    const { port, events } = recordingTracer();
    let finishLoading: (tracer: TracerPort) => void = () => undefined;
    const hooks = lazyTracing(() => new Promise<TracerPort>((resolve) => (finishLoading = resolve)));
    const early = { name: "early" };

    // Act
    const instrumented = hooks.instrument(early);
    const captureBeforeLoad = [...events];
    const invocation = hooks.invocation("lane-worker", async () => {
      events.push("handler runs");
      return "applied";
    });
    finishLoading(port);
    const result = await invocation;
    hooks.instrument({ name: "late" });

    // Assess
    expect(instrumented).toBe(early);
    expect(captureBeforeLoad).toEqual([]);
    expect(result).toBe("applied");
    expect(events.indexOf("capture client")).toBeLessThan(events.indexOf("handler runs"));
    expect(events.filter((event) => event === "capture client")).toHaveLength(2);
    expect(events).toContain("open ## lane-worker");
  });

  it("fails the invocations when the tracer cannot be loaded, without an unhandled rejection at init", async () => {
    // Prepare
    const hooks = lazyTracing(() => Promise.reject(new Error("tracer missing from the bundle")));
    await new Promise((resolve) => setImmediate(resolve));

    // Act
    const thrown = await hooks.invocation("http-steer", async () => "never").catch((error: unknown) => error);

    // Assess
    expect((thrown as Error).message).toBe("tracer missing from the bundle");
  });

  it("inside Lambda the Powertools Tracer is loaded and adds the X-Ray middleware to a client built before it loaded", async () => {
    // Prepare
    const env = { AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x" };
    const executionEnv = process.env.AWS_EXECUTION_ENV;
    process.env.AWS_EXECUTION_ENV = env.AWS_EXECUTION_ENV;
    try {
      const tracer = powertoolsTracing("skills-test", env);
      const client = new DynamoDBClient({ region: "us-east-1" });
      const before = client.middlewareStack.identify();

      // Act
      tracer.instrument(client);
      await tracer.invocation("http-skills", async () => "no Lambda segment here: runs bare");

      // Assess
      const added = client.middlewareStack.identify().filter((name) => !before.includes(name));
      expect(added.join(" ")).toMatch(/XRay/i);
    } finally {
      if (executionEnv === undefined) delete process.env.AWS_EXECUTION_ENV;
      else process.env.AWS_EXECUTION_ENV = executionEnv;
    }
  });
});

describe("Powertools Tracer behind the hooks", () => {
  const executionEnv = process.env.AWS_EXECUTION_ENV;
  afterEach(() => {
    if (executionEnv === undefined) delete process.env.AWS_EXECUTION_ENV;
    else process.env.AWS_EXECUTION_ENV = executionEnv;
  });

  const middlewareNames = (client: DynamoDBClient): string[] => client.middlewareStack.identify();

  it("outside Lambda leaves clients untouched and runs invocations as they are", async () => {
    // Prepare
    delete process.env.AWS_EXECUTION_ENV;
    const hooks = tracingHooks(new Tracer({ serviceName: "skills-test" }));
    const client = new DynamoDBClient({ region: "us-east-1" });
    const before = middlewareNames(client);

    // Act
    hooks.instrument(client);
    const result = await hooks.invocation("http-skills", async () => "composed");

    // Assess
    expect(middlewareNames(client)).toEqual(before);
    expect(result).toBe("composed");
  });

  it("on Lambda adds the X-Ray middleware to a client", () => {
    // Prepare
    process.env.AWS_EXECUTION_ENV = "AWS_Lambda_nodejs22.x";
    const hooks = tracingHooks(new Tracer({ serviceName: "skills-test", captureHTTPsRequests: false }));
    const client = new DynamoDBClient({ region: "us-east-1" });
    const before = middlewareNames(client);

    // Act
    hooks.instrument(client);

    // Assess
    const added = middlewareNames(client).filter((name) => !before.includes(name));
    expect(added.join(" ")).toMatch(/XRay/i);
  });
});

describe("runtimeFromEnv instrumentation", () => {
  const ENV_ALL = {
    SKILLS_TABLE_NAME: "t",
    SKILLS_WS_CALLBACK_URL: "https://ws.example/live",
    SKILLS_LANE_QUEUE_URL: "https://sqs.eu-west-1.amazonaws.com/123456789012/lane.fifo",
    AWS_REGION: "eu-west-1",
  };

  /** Records each client's class and answers its every call at once, so a client built on first use can send without a network. */
  const recording = (seen: string[]) =>
    (<C extends object>(client: C): C => {
      seen.push(client.constructor.name);
      (client as unknown as { middlewareStack: { add(middleware: unknown, options: object): void } }).middlewareStack.add(
        () => async () => ({ output: { $metadata: {} }, response: {} }),
        { step: "initialize", priority: "high" },
      );
      return client;
    }) as ClientInstrumentation;

  it("passes every SDK client a function builds at init through the hook, SQS included when it enqueues", () => {
    // Prepare
    const seen: string[] = [];

    // Act
    runtimeFromEnv(ENV_ALL, { instrument: recording(seen), sqs: sqsFromEnv });

    // Assess
    expect(seen.sort()).toEqual(["DynamoDBClient", "S3Client", "SQSClient"]);
  });

  it("passes the lane worker's clients built on first use (SQS, the WebSocket push) through the hook when they are built", async () => {
    // Prepare
    const seen: string[] = [];
    const resources = runtimeFromEnv(ENV_ALL, { instrument: recording(seen), sqs: sqsOnFirstUse });
    const push = connectionPushOnFirstUse(resources, ENV_ALL.SKILLS_WS_CALLBACK_URL, new InMemoryConnectionStore());
    processEventsFromEnv(resources);
    const atInit = [...seen].sort();
    const message = laneMessage();

    // Act
    await resources.lane.enqueue(message);
    const outcome = await push.send({ connectionId: "c-1" }, errorFrame({ code: "INTERNAL", message: "probe" }));

    // Assess
    expect(atInit).toEqual(["DynamoDBClient", "S3Client"]);
    expect(seen.sort()).toEqual(["ApiGatewayManagementApiClient", "DynamoDBClient", "S3Client", "SQSClient"]);
    expect(outcome).toBe("sent");
  });
});
