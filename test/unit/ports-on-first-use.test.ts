import type { SQSRecord } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../shared/config/config-errors.js";
import type { ConnectionPush } from "../../shared/connections/connection-push.js";
import { errorFrame } from "../../shared/connections/server-frames.js";
import type { Lane } from "../../shared/lanes/lane.js";
import { LaneConfigurationError } from "../../shared/lanes/lane-errors.js";
import type { LaneMessage } from "../../shared/lanes/lane-message.js";
import { laneMessage } from "../support/lane-message-fixture.js";
import { loadOnce } from "../../shared/lazy/load-once.js";
import { LlmConfigurationError } from "../../shared/llm/llm-errors.js";
import { hasTemplateSyntax } from "../../shared/templates/template-renderer.js";
import type { TemplateRenderer } from "../../shared/templates/template-renderer.js";
import type { GuardEvaluation, GuardRunner } from "../../shared/turns/guard-runner.js";
import { runtimeFromEnv } from "../../shared/wiring/app-from-env.js";
import { guardRunnerFromEnv } from "../../shared/wiring/guard-runner-from-env.js";
import { laneDeadLetterFromEnv } from "../../shared/wiring/lane-worker-from-env.js";
import {
  ConnectionPushOnFirstUse,
  GuardRunnerOnFirstUse,
  LaneOnFirstUse,
  TemplateRendererOnFirstUse,
} from "../../shared/wiring/ports-on-first-use.js";
import { sqsFromEnv } from "../../shared/wiring/sqs-from-env.js";
import { sqsOnFirstUse } from "../../shared/wiring/sqs-on-first-use.js";

const message = laneMessage();

/** A loader that counts its calls and hands back `value`, or fails the first `failures` calls. */
function countingLoader<T>(value: T, failures = 0): { load: () => Promise<T>; calls: () => number } {
  let calls = 0;
  return {
    load: async () => {
      calls++;
      if (calls <= failures) throw new Error(`load ${calls} failed`);
      return value;
    },
    calls: () => calls,
  };
}

/** A renderer that upper-cases what it renders and caches nothing. */
function upperCaseRenderer(): TemplateRenderer & { rendered: string[] } {
  const rendered: string[] = [];
  return {
    rendered,
    render: async (template) => {
      rendered.push(template);
      return template.toUpperCase();
    },
    cached: (template) => (hasTemplateSyntax(template) ? undefined : template),
  };
}

describe("loadOnce", () => {
  it("runs the loader once for any number of calls, concurrent ones included", async () => {
    // Prepare
    const { load, calls } = countingLoader("module");
    const loaded = loadOnce(load);

    // Act
    const values = await Promise.all([loaded(), loaded(), loaded()]);

    // Assess
    expect(values).toEqual(["module", "module", "module"]);
    expect(calls()).toBe(1);
  });

  it("does not keep a failed load: the next call tries again", async () => {
    // Prepare
    const { load, calls } = countingLoader("module", 1);
    const loaded = loadOnce(load);

    // Act
    const first = await loaded().catch((error: unknown) => error);
    const second = await loaded();

    // Assess
    expect(String(first)).toMatch(/load 1 failed/);
    expect(second).toBe("module");
    expect(calls()).toBe(2);
  });
});

describe("ports on first use", () => {
  it("a lane loads its adapter on the first enqueue, once, and forwards every message", async () => {
    // Prepare
    const enqueued: LaneMessage[] = [];
    const { load, calls } = countingLoader<Lane>({ enqueue: async (m) => void enqueued.push(m) });
    const lane = new LaneOnFirstUse(load);
    const before = calls();

    // Act
    await lane.enqueue(message);
    await lane.enqueue({ ...message, requestId: "req-2" });

    // Assess
    expect(before).toBe(0);
    expect(calls()).toBe(1);
    expect(enqueued.map((m) => m.requestId)).toEqual(["req-1", "req-2"]);
  });

  it("a push loads its adapter on the first send and forwards sends and disconnects", async () => {
    // Prepare
    const calls: string[] = [];
    const loaded = countingLoader<ConnectionPush>({
      send: async (target) => (calls.push(`send ${target.connectionId}`), "gone"),
      disconnect: async (target) => void calls.push(`disconnect ${target.connectionId}`),
    });
    const push = new ConnectionPushOnFirstUse(loaded.load);

    // Act
    const outcome = await push.send({ tenant: "acme", connectionId: "c-1" }, errorFrame({ code: "INTERNAL", message: "x" }));
    await push.disconnect({ connectionId: "c-2" });

    // Assess
    expect(outcome).toBe("gone");
    expect(calls).toEqual(["send c-1", "disconnect c-2"]);
    expect(loaded.calls()).toBe(1);
  });

  it("a renderer answers plain text without loading, as the sandboxed renderer does", async () => {
    // Prepare
    const { load, calls } = countingLoader<TemplateRenderer>(upperCaseRenderer());
    const renderer = new TemplateRendererOnFirstUse(load);

    // Act
    const cached = renderer.cached("Plain **Markdown**.", {});
    const rendered = await renderer.render("Plain **Markdown**.", {});
    const templated = renderer.cached("Hi {{ args.text }}", {});

    // Assess
    expect(cached).toBe("Plain **Markdown**.");
    expect(rendered).toBe("Plain **Markdown**.");
    expect(templated).toBeUndefined();
    expect(calls()).toBe(0);
  });

  it("a renderer loads on the first template and then forwards every call, plain text included", async () => {
    // Prepare
    const inner = upperCaseRenderer();
    const { load, calls } = countingLoader<TemplateRenderer>(inner);
    const renderer = new TemplateRendererOnFirstUse(load);

    // Act
    const [a, b] = await Promise.all([renderer.render("{{ x }} one", {}), renderer.render("{{ x }} two", {})]);
    const plain = await renderer.render("plain", {});

    // Assess
    expect([a, b, plain]).toEqual(["{{ X }} ONE", "{{ X }} TWO", "PLAIN"]);
    expect(inner.rendered).toEqual(["{{ x }} one", "{{ x }} two", "plain"]);
    expect(calls()).toBe(1);
  });

  it("a guard runner loads on the first evaluation; a failed load fails that evaluation and the next one loads again", async () => {
    // Prepare
    const evaluated: string[] = [];
    const { load, calls } = countingLoader<GuardRunner>(
      { evaluate: async (e) => (evaluated.push(e.turnId), { continueWith: "again" }) },
      1,
    );
    const guard = new GuardRunnerOnFirstUse(load);
    const evaluation = { turnId: "t-1", output: "done", final: false } as GuardEvaluation;

    // Act
    const failed = await guard.evaluate(evaluation).catch((error: unknown) => error);
    const verdict = await guard.evaluate(evaluation);

    // Assess
    expect(String(failed)).toMatch(/load 1 failed/);
    expect(verdict).toEqual({ continueWith: "again" });
    expect(evaluated).toEqual(["t-1"]);
    expect(calls()).toBe(2);
  });
});

describe("the lane worker's wiring on first use", () => {
  const ENV_LANE = {
    AWS_REGION: "eu-west-1",
    SKILLS_LANE_QUEUE_URL: "https://sqs.eu-west-1.amazonaws.com/123456789012/lane.fifo",
    SKILLS_LANE_DLQ_URL: "https://sqs.eu-west-1.amazonaws.com/123456789012/lane-dlq.fifo",
  };

  it("still refuses a lane or DLQ that is not a FIFO queue at init", () => {
    // Prepare
    const lane = { ...ENV_LANE, SKILLS_LANE_QUEUE_URL: "https://sqs.eu-west-1.amazonaws.com/123456789012/lane" };
    const dlq = { ...ENV_LANE, SKILLS_LANE_DLQ_URL: "https://sqs.eu-west-1.amazonaws.com/123456789012/lane-dlq" };

    // Act
    const wireLane = () => runtimeFromEnv(lane, { sqs: sqsOnFirstUse });
    const wireDeadLetter = () => laneDeadLetterFromEnv(runtimeFromEnv(dlq, { sqs: sqsOnFirstUse }));

    // Assess
    expect(wireLane).toThrow(LaneConfigurationError);
    expect(wireLane).toThrow(/Lane queue must be a FIFO queue/);
    expect(wireDeadLetter).toThrow(/Lane DLQ must be a FIFO queue/);
  });

  it("still refuses a half-done LLM configuration at init, not on the first guard", () => {
    // Prepare
    const env = { SKILLS_LLM_URL: "https://llm.example/v1" };

    // Act
    const wire = () => guardRunnerFromEnv({ store: {} as never, bundled: {} as never }, env);

    // Assess
    expect(wire).toThrow(LlmConfigurationError);
  });

  it("parks a poison record through the SQS adapter it imports on first use", async () => {
    // Prepare
    const sent: { input: Record<string, unknown> }[] = [];
    const instrument = <C extends object>(client: C): C => {
      (client as unknown as { send: (command: { input: Record<string, unknown> }) => Promise<object> }).send = async (command) => (
        sent.push(command),
        {}
      );
      return client;
    };
    const park = laneDeadLetterFromEnv(runtimeFromEnv(ENV_LANE, { instrument, sqs: sqsOnFirstUse }))!;
    const record = {
      messageId: "m-1",
      body: "{}",
      attributes: { MessageGroupId: "acme#p1", MessageDeduplicationId: "d-1" },
      eventSourceARN: "arn:aws:sqs:eu-west-1:123456789012:lane.fifo",
    } as unknown as SQSRecord;

    // Act
    await park(record, new Error("poison"));

    // Assess
    expect(sent.map((command) => command.input.QueueUrl)).toEqual([ENV_LANE.SKILLS_LANE_DLQ_URL]);
    expect(sent[0]?.input.MessageDeduplicationId).toBe("d-1");
  });

  it("a function given no SQS adapters has a lane that reports the wiring mistake, and no DLQ", async () => {
    // Prepare
    const resources = runtimeFromEnv(ENV_LANE);

    // Act
    const failure = await resources.lane.enqueue(message).catch((error: unknown) => error);
    const deadLetter = () => laneDeadLetterFromEnv(resources);
    const eager = () => laneDeadLetterFromEnv(runtimeFromEnv(ENV_LANE, { sqs: sqsFromEnv }));

    // Assess
    expect(failure).toBeInstanceOf(ConfigurationError);
    expect(String(failure)).toMatch(/does not enqueue/);
    expect(deadLetter).toThrow(ConfigurationError);
    expect(eager).toThrow(/lane worker's SQS adapters/);
  });
});
