import { describe, expect, it } from "vitest";
import { InMemoryLane } from "../../shared/lanes/in-memory-lane.js";
import { LaneMessageTooLarge } from "../../shared/lanes/lane-errors.js";
import type { LaneMessage } from "../../shared/lanes/lane-message.js";

let sequence = 0;
function message(processId: string, label: string, overrides: Partial<LaneMessage> = {}): LaneMessage {
  sequence += 1;
  return {
    requestId: `req-${sequence}`,
    processId,
    tenant: "acme",
    user: { login: "alice" },
    kind: "skill.activate",
    payload: { label },
    enqueuedAt: new Date(0).toISOString(),
    ...overrides,
  };
}

const labelOf = (m: LaneMessage): string => (m.payload as { label: string }).label;

describe("InMemoryLane", () => {
  it("delivers each process's messages in enqueue order", async () => {
    // Prepare
    const lane = new InMemoryLane();
    for (let i = 1; i <= 5; i++) {
      await lane.enqueue(message("A", `A${i}`));
      await lane.enqueue(message("B", `B${i}`));
    }
    const seen: string[] = [];

    // Act
    const result = await lane.drain(async (m) => {
      seen.push(labelOf(m));
    });

    // Assess
    expect(result).toEqual({ delivered: 10, failures: [] });
    expect(seen.filter((l) => l.startsWith("A"))).toEqual(["A1", "A2", "A3", "A4", "A5"]);
    expect(seen.filter((l) => l.startsWith("B"))).toEqual(["B1", "B2", "B3", "B4", "B5"]);
    expect(lane.size).toBe(0);
  });

  it("never runs two messages of one process at the same time", async () => {
    // Prepare
    const lane = new InMemoryLane();
    for (let i = 0; i < 4; i++) {
      await lane.enqueue(message("A", `A${i}`));
      await lane.enqueue(message("B", `B${i}`));
    }
    const running = new Set<string>();
    let overlaps = 0;
    let crossProcessOverlap = false;

    // Act
    await lane.drain(async (m) => {
      if (running.has(m.processId)) overlaps += 1;
      if (running.size > 0) crossProcessOverlap = true;
      running.add(m.processId);
      await new Promise((resolve) => setTimeout(resolve, 1));
      running.delete(m.processId);
    });

    // Assess
    expect(overlaps).toBe(0);
    expect(crossProcessOverlap).toBe(true);
  });

  it("delivers a requestId enqueued twice on one process once", async () => {
    // Prepare
    const lane = new InMemoryLane();
    const first = message("A", "first");
    await lane.enqueue(first);
    await lane.enqueue({ ...first, payload: { label: "retry" } });
    await lane.enqueue({ ...first, processId: "B", payload: { label: "other process" } });
    const seen: string[] = [];

    // Act
    await lane.drain(async (m) => {
      seen.push(labelOf(m));
    });

    // Assess
    expect(seen.sort()).toEqual(["first", "other process"]);
  });

  it("accepts the same requestId again after the de-duplication window", async () => {
    // Prepare
    let now = 1_000;
    const lane = new InMemoryLane({ deduplicationWindowMs: 100, now: () => now });
    const first = message("A", "first");
    await lane.enqueue(first);
    now += 100;
    await lane.enqueue({ ...first, payload: { label: "later" } });
    const seen: string[] = [];

    // Act
    await lane.drain(async (m) => {
      seen.push(labelOf(m));
    });

    // Assess
    expect(seen).toEqual(["first", "later"]);
  });

  it("holds back the rest of a failing process and redelivers it next drain, in order", async () => {
    // Prepare
    const lane = new InMemoryLane();
    for (const label of ["A1", "A2", "A3"]) await lane.enqueue(message("A", label));
    for (const label of ["B1", "B2"]) await lane.enqueue(message("B", label));
    const seen: string[] = [];
    let failA2 = true;
    const handler = async (m: LaneMessage): Promise<void> => {
      if (labelOf(m) === "A2" && failA2) throw new Error("transient");
      seen.push(labelOf(m));
    };

    // Act
    const first = await lane.drain(handler);
    failA2 = false;
    const second = await lane.drain(handler);

    // Assess
    expect(first.delivered).toBe(3);
    expect(first.failures.map((f) => [labelOf(f.message), f.receiveCount])).toEqual([["A2", 1]]);
    expect(second).toEqual({ delivered: 2, failures: [] });
    expect(seen.filter((l) => l.startsWith("A"))).toEqual(["A1", "A2", "A3"]);
    expect(seen.filter((l) => l.startsWith("B"))).toEqual(["B1", "B2"]);
  });

  it("dead-letters a message after maxReceiveCount failures and frees its process", async () => {
    // Prepare
    const lane = new InMemoryLane({ maxReceiveCount: 2 });
    await lane.enqueue(message("A", "poison"));
    await lane.enqueue(message("A", "next"));
    const seen: string[] = [];
    const handler = async (m: LaneMessage): Promise<void> => {
      if (labelOf(m) === "poison") throw new Error("never works");
      seen.push(labelOf(m));
    };

    // Act
    await lane.drain(handler);
    await lane.drain(handler);
    await lane.drain(handler);

    // Assess
    expect(lane.deadLetters.map(labelOf)).toEqual(["poison"]);
    expect(seen).toEqual(["next"]);
  });

  it("delivers messages the handler enqueues within the same drain", async () => {
    // Prepare
    const lane = new InMemoryLane();
    await lane.enqueue(message("parent", "spawn"));
    const seen: string[] = [];

    // Act
    await lane.drain(async (m) => {
      seen.push(`${m.processId}:${labelOf(m)}`);
      if (labelOf(m) === "spawn") await lane.enqueue(message("child", "activate", { kind: "process.spawnActivate" }));
    });

    // Assess
    expect(seen).toEqual(["parent:spawn", "child:activate"]);
  });

  it("hands the handler a copy, not the producer's object", async () => {
    // Prepare
    const lane = new InMemoryLane();
    const original = message("A", "x");
    await lane.enqueue(original);
    (original.payload as { label: string }).label = "mutated after enqueue";
    const seen: string[] = [];

    // Act
    await lane.drain(async (m) => {
      seen.push(labelOf(m));
    });

    // Assess
    expect(seen).toEqual(["x"]);
  });

  it("rejects an oversized message at enqueue, like SQS", async () => {
    // Prepare
    const lane = new InMemoryLane({ maxBodyBytes: 1024 });

    // Act
    const enqueued = lane.enqueue(message("A", "x".repeat(2048)));

    // Assess
    await expect(enqueued).rejects.toBeInstanceOf(LaneMessageTooLarge);
    expect(lane.size).toBe(0);
  });
});
