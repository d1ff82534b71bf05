import type { SQSRecord } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { laneGroupIdOf } from "../../shared/lanes/lane-identity.js";
import { encodeLaneMessage } from "../../shared/lanes/lane-message.js";
import type { LaneMessage } from "../../shared/lanes/lane-message.js";
import { createLaneWorkerHandler } from "../../shared/lanes/lane-worker.js";
import type { LaneWorkerHandler } from "../../shared/lanes/lane-worker.js";
import type { SqsBatchHandler } from "../../infra/local/sqs-lane-poller.js";
import type { Process } from "../../shared/processes/process.js";
import type { RenderContext } from "../../shared/templates/template-renderer.js";
import { serviceError } from "../support/fault-injection.js";
import { ALICE, laneOutcome, laneRigFixture } from "../support/fault-lane-rig.js";
import type { LaneRig, LaneRigOptions } from "../support/fault-lane-rig.js";
import { comparableProcess } from "../support/fault-workload.js";
import { FakeRenderer } from "../support/steering-harness.js";
import { skillMd } from "../support/skill-fixtures.js";

/**
 * A lane worker that fails: a message that fails for a while holds back the rest of its process
 * (in order) while other processes go on; one that fails on every delivery (a poison message)
 * ends in the FIFO DLQ after the queue's receive limit, and its request is recorded FAILED with
 * a typed error so whoever waits for it gets an answer instead of QUEUED forever.
 */

const MAX_RECEIVES = 3;

/** Renders like FakeRenderer, but some templates fail the way a bug or an overloaded dependency does. */
class FaultyRenderer extends FakeRenderer {
  flaky: () => boolean = () => false;

  override async render(template: string, context: RenderContext): Promise<string> {
    if (template.includes("{{ explode }}")) throw new TypeError("Cannot read properties of undefined (reading 'explode')");
    if (template.includes("{{ throttle }}")) throw serviceError("ThrottlingException", "Rate exceeded", 400);
    if (template.includes("{{ flaky }}") && this.flaky()) throw serviceError("ThrottlingException", "Rate exceeded", 400);
    return super.render(template.replace(/\{\{ (flaky|explode|throttle) \}\}/g, ""), context);
  }
}

const FAULTY_SKILLS: Record<string, string> = {
  flaky: skillMd({ title: "Flaky", extra: "action: 'Flaky starts.{{ flaky }}'" }),
  buggy: skillMd({ title: "Buggy", extra: "action: 'Never renders {{ explode }}'" }),
  overloaded: skillMd({ title: "Overloaded", extra: "action: 'Never renders {{ throttle }}'" }),
};

const lanes = laneRigFixture("poison");

/** Every delivery the poller hands the worker: `<requestId>@<receiveCount>`, in order. */
type Attempts = string[];

async function rig(options: Partial<LaneRigOptions> & { renderer: FaultyRenderer }): Promise<{ rig: LaneRig; attempts: Attempts }> {
  const attempts: Attempts = [];
  const started = await lanes.start({
    maxReceiveCount: MAX_RECEIVES,
    ...options,
    wrapHandler:
      (handler: LaneWorkerHandler): SqsBatchHandler =>
      async (event, context) => {
        for (const r of event.Records)
          attempts.push(`${(JSON.parse(r.body) as LaneMessage).requestId}@${r.attributes.ApproximateReceiveCount}`);
        return handler(event, context);
      },
  });
  for (const [name, text] of Object.entries(FAULTY_SKILLS))
    await started.documents.put(started.tenant, "_tenant", `_vance/skills/${name}/SKILL.md`, text);
  return { rig: started, attempts };
}

const activate = (target: LaneRig, process: Process, skillName: string, requestId: string) =>
  target.app.steerSkill(target.tenant, process.processId, ALICE, { command: "ACTIVATE", skillName, requestId });

const attemptsOf = (attempts: Attempts, prefix: string): string[] => attempts.filter((a) => a.startsWith(prefix));

describe("lane worker failures", () => {
  it("retries a failing message, then the rest of its process in order, while other processes go on", async () => {
    // Prepare: the flaky activation fails until every request of process B is settled.
    const renderer = new FaultyRenderer();
    const { rig: target, attempts } = await rig({ renderer, maxReceiveCount: 50 });
    const [a, b] = [await target.spawn(), await target.spawn()];
    const bIds = ["b0", "b1", "b2", "b3"];
    renderer.flaky = () => !bIds.every((id) => target.settled.some((s) => s.message.requestId === id));

    // Act
    for (const [id, skill] of [
      ["a0", "s0"],
      ["a1", "flaky"],
      ["a2", "s1"],
      ["a3", "s2"],
    ] as const)
      await activate(target, a, skill, id);
    for (const [i, id] of bIds.entries()) await activate(target, b, `s${i}`, id);
    await target.idle();

    // Assess: A strictly in order, a1 retried until B was through, then a2 and a3
    const ofA = attemptsOf(attempts, "a");
    const a1Tries = ofA.filter((x) => x.startsWith("a1@")).length;
    expect(a1Tries).toBeGreaterThanOrEqual(2);
    expect(ofA).toEqual(["a0@1", ...Array.from({ length: a1Tries }, (_, i) => `a1@${i + 1}`), "a2@1", "a3@1"]);
    expect(attempts.indexOf("b3@1")).toBeLessThan(attempts.indexOf(`a1@${a1Tries}`));
    for (const process of [a, b]) {
      const outcome = await laneOutcome(target, process);
      expect([...outcome.records.values()].map((r) => r?.status)).toEqual(["DONE", "DONE", "DONE", "DONE"]);
      expect(comparableProcess(outcome.process)).toEqual(comparableProcess(outcome.replay.process));
    }
  });

  it.each([
    { label: "a bug, parked by the worker", skill: "buggy", park: true, code: "INTERNAL", because: /because of an internal error/ },
    {
      label: "an overloaded dependency, parked by the worker",
      skill: "overloaded",
      park: true,
      code: "SERVICE_UNAVAILABLE",
      because: /backing service was unavailable/,
    },
    { label: "a bug, moved by the redrive policy", skill: "buggy", park: false, code: "INTERNAL", because: /because of an internal error/ },
  ])(
    "gives up on a poison message ($label) after the receive limit: DLQ, a typed FAILED, the process goes on",
    async ({ skill, park, code, because }) => {
      // Prepare
      const { rig: target, attempts } = await rig({ renderer: new FaultyRenderer(), parkInDeadLetterQueue: park });
      const [a, b] = [await target.spawn(), await target.spawn()];

      // Act
      for (const [id, name] of [
        ["a0", "s0"],
        ["a1", skill],
        ["a2", "s1"],
      ] as const)
        await activate(target, a, name, id);
      await activate(target, b, "s2", "b0");
      const answer = await target.app.waitForRequest(target.tenant, a.processId, "a1", 30_000);
      await target.idle();

      // Assess: the caller got a typed error; it was tried exactly up to the limit
      expect(answer).toMatchObject({ status: "FAILED", error: { code } });
      expect(answer?.error?.message).toMatch(new RegExp(`gave up after ${MAX_RECEIVES} deliveries`));
      expect(answer?.error?.message).toMatch(because);
      expect(attemptsOf(attempts, "a1@")).toEqual(Array.from({ length: MAX_RECEIVES }, (_, i) => `a1@${i + 1}`));

      // Assess: the poison message, and only it, waits in the DLQ
      const dead = await target.deadLetters();
      expect(dead.map((m) => (JSON.parse(m.Body ?? "{}") as LaneMessage).requestId)).toEqual(["a1"]);
      if (park)
        expect(dead[0]?.MessageAttributes?.["lane.poisonReason"]?.StringValue).toMatch(
          code === "INTERNAL" ? /^TypeError: / : /^ThrottlingException: /,
        );

      // Assess: the rest of A and all of B applied; A is as if a1 had never been sent
      const outcome = await laneOutcome(target, a, { exclude: new Set(["a1"]) });
      expect([...outcome.records].map(([id, r]) => [id, r?.status])).toEqual([
        ["a0", "DONE"],
        ["a1", "FAILED"],
        ["a2", "DONE"],
      ]);
      expect(comparableProcess(outcome.process)).toEqual(comparableProcess(outcome.replay.process));
      expect(outcome.process.appliedRequests).not.toContain("a1");
      expect(await target.app.getRequest(target.tenant, b.processId, "b0")).toMatchObject({ status: "DONE" });
    },
  );

  describe("one invocation with a batch as SQS hands it out on AWS (a group's messages together)", () => {
    function recordOf(message: LaneMessage, receiveCount: number): SQSRecord {
      return {
        messageId: `m-${message.requestId}`,
        receiptHandle: `rh-${message.requestId}`,
        body: encodeLaneMessage(message),
        attributes: {
          ApproximateReceiveCount: String(receiveCount),
          SentTimestamp: "1700000000000",
          SenderId: "AROAEXAMPLE",
          ApproximateFirstReceiveTimestamp: "1700000000001",
          MessageGroupId: laneGroupIdOf(message),
          MessageDeduplicationId: message.requestId,
          SequenceNumber: "1",
        },
        messageAttributes: {},
        md5OfBody: "",
        eventSource: "aws:sqs",
        eventSourceARN: "arn:aws:sqs:us-east-1:000000000000:lane.fifo",
        awsRegion: "us-east-1",
      };
    }

    async function batchFixture() {
      const { rig: target } = await rig({ renderer: new FaultyRenderer() });
      await target.poller.stop();
      const [a, b] = [await target.spawn(), await target.spawn()];
      const plan: [Process, string, string][] = [
        [a, "a1", "buggy"],
        [a, "a2", "s0"],
        [a, "a3", "s1"],
        [b, "b1", "s2"],
      ];
      for (const [process, id, skill] of plan) await activate(target, process, skill, id);
      const messages = plan.map(([process, id]) => target.enqueued.get(process.processId)!.find((m) => m.requestId === id)!);
      const parked: string[] = [];
      const handler = createLaneWorkerHandler(target.worker.applyLaneMessage, {
        logger: { debug: () => undefined, warn: () => undefined, error: () => undefined },
        maxReceiveCount: MAX_RECEIVES,
        onPoison: async (record) => void parked.push((JSON.parse(record.body) as LaneMessage).requestId),
      });
      return { target, a, b, messages, parked, handler };
    }

    it("reports the failed message and the rest of its group for redelivery, and applies the other group", async () => {
      // Prepare
      const { target, messages, parked, handler } = await batchFixture();
      const processOf = (id: string) => messages.find((m) => m.requestId === id)!.processId;

      // Act
      const response = await handler({ Records: messages.map((m) => recordOf(m, 1)) });

      // Assess
      expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(["m-a1", "m-a2", "m-a3"]);
      expect(parked).toEqual([]);
      const statuses = await Promise.all(
        ["a1", "a2", "a3", "b1"].map(async (id) => (await target.app.getRequest(target.tenant, processOf(id), id))?.status),
      );
      expect(statuses).toEqual(["QUEUED", "QUEUED", "QUEUED", "DONE"]);
    });

    it("on the last allowed delivery parks the poison message and applies the rest of its group in the same batch", async () => {
      // Prepare: every record of A was received as often as the poison one (same batches), so
      // left to the redrive policy they would all follow it into the DLQ.
      const { target, a, messages, parked, handler } = await batchFixture();
      const processOf = (id: string) => messages.find((m) => m.requestId === id)!.processId;

      // Act
      const response = await handler({ Records: messages.map((m) => recordOf(m, m.requestId === "b1" ? 1 : MAX_RECEIVES)) });

      // Assess
      expect(response.batchItemFailures).toEqual([]);
      expect(parked).toEqual(["a1"]);
      const records = await Promise.all(["a1", "a2", "a3", "b1"].map((id) => target.app.getRequest(target.tenant, processOf(id), id)));
      expect(records.map((r) => r?.status)).toEqual(["FAILED", "DONE", "DONE", "DONE"]);
      expect(records[0]?.error?.code).toBe("INTERNAL");
      expect((await target.app.getProcess(target.tenant, a.processId)).activeSkills.map((s) => s.name)).toEqual(["s0", "s1"]);
    });
  });
});
