import { describe, expect, it } from "vitest";
import { InMemoryRequestStore } from "../../shared/processes/in-memory-request-store.js";
import { LaneSettleTimes } from "../../shared/processes/lane-settle-times.js";
import { SettleTimeEstimate } from "../../shared/processes/settle-time-estimate.js";

const T = "acme";

/** A store on a fake clock whose sleeps advance it; `during` runs at each sleep (the lane working meanwhile). */
function clockedStore(during: (atMs: number) => Promise<void> = async () => undefined) {
  let nowMs = 0;
  const sleeps: number[] = [];
  let reads = 0;
  const store = new InMemoryRequestStore({
    now: () => nowMs,
    sleep: async (ms) => {
      sleeps.push(ms);
      nowMs += ms;
      await during(nowMs);
    },
  });
  // Every read of one record, the first read's and the watcher's alike, goes through readItem.
  const raw = store as unknown as { readItem: (...args: unknown[]) => Promise<unknown> };
  const readItem = raw.readItem.bind(store);
  raw.readItem = async (...args) => {
    reads += 1;
    return readItem(...args);
  };
  return { store, sleeps, reads: () => reads };
}

describe("waitFor with a first read after the expected time", () => {
  it("reads once, after that time, when the lane has settled the request by then; no slot is asked for", async () => {
    // Prepare
    const { store, sleeps, reads } = clockedStore(async (at) => {
      if (at >= 30) await store.complete(T, "p", "r", { status: "DONE", result: "ok" });
    });
    await store.putQueued(T, "p", "r", "turn.compose");
    let slots = 0;

    // Act
    const record = await store.waitFor(T, "p", "r", 5_000, { firstReadAfterMs: 40, beforeLongWait: async () => void (slots += 1) });

    // Assess
    expect(record?.status).toBe("DONE");
    expect(sleeps).toEqual([40]);
    expect(reads()).toBe(1);
    expect(slots).toBe(0);
  });

  it("takes the long wait's slot only when the first read finds the request still QUEUED, then waits on", async () => {
    // Prepare
    const { store } = clockedStore(async (at) => {
      if (at >= 200) await store.complete(T, "p", "r", { status: "DONE", result: "late" });
    });
    await store.putQueued(T, "p", "r", "turn.compose");
    let slots = 0;

    // Act
    const record = await store.waitFor(T, "p", "r", 5_000, { firstReadAfterMs: 40, beforeLongWait: async () => void (slots += 1) });

    // Assess
    expect(record).toMatchObject({ status: "DONE", result: "late" });
    expect(slots).toBe(1);
  });

  it("ends with the slot's error when no slot is free, and never waits past the first read then", async () => {
    // Prepare
    const { store, sleeps } = clockedStore();
    await store.putQueued(T, "p", "r", "turn.compose");

    // Act
    const waited = store.waitFor(T, "p", "r", 5_000, {
      firstReadAfterMs: 40,
      beforeLongWait: async () => Promise.reject(new Error("no slot")),
    });

    // Assess
    await expect(waited).rejects.toThrow("no slot");
    expect(sleeps).toEqual([40]);
  });

  it("answers the QUEUED record at the deadline when the deadline comes before the expected time", async () => {
    // Prepare
    const { store, sleeps } = clockedStore();
    await store.putQueued(T, "p", "r", "turn.compose");

    // Act
    const record = await store.waitFor(T, "p", "r", 25, {
      firstReadAfterMs: 40,
      beforeLongWait: async () => Promise.reject(new Error("no slot")),
    });

    // Assess
    expect(record?.status).toBe("QUEUED");
    expect(sleeps).toEqual([25]);
  });
});

describe("learned first reads", () => {
  it("the first read of the next wait comes when the lane's last request settled, from the record's completion time", async () => {
    // Prepare: the lane completes the first request at the first sleep that ends at 100 ms or later
    let completedAt: number | undefined;
    const { store, sleeps } = clockedStore(async (at) => {
      if (at >= 100 && completedAt === undefined) {
        completedAt = at;
        await store.complete(T, "p", "r1", { status: "DONE", result: "ok" });
      }
    });
    await store.putQueued(T, "p", "r1", "turn.compose");

    // Act
    const first = await store.waitFor(T, "p", "r1", 5_000, { firstReadAfterMs: "learned" });
    await store.putQueued(T, "p", "r2", "turn.compose");
    await store.complete(T, "p", "r2", { status: "DONE", result: "ok" });
    const sleepsBefore = sleeps.length;
    await store.waitFor(T, "p", "r2", 5_000, { firstReadAfterMs: "learned" });

    // Assess: 50 ms before anything was learned; then what the first took, plus a small margin
    expect(first?.status).toBe("DONE");
    expect(sleeps[0]).toBe(50);
    expect(sleeps.slice(sleepsBefore)).toEqual([completedAt! + 2]);
  });
});

describe("learned first reads per lane", () => {
  it("a backlog on one process's lane does not delay the first reads of another process", async () => {
    // Prepare: a fake clock on which the lane settles each request exactly `tookMs` after its wait began
    let nowMs = 0;
    let pending: { processId: string; requestId: string; at: number } | undefined;
    const sleeps: number[] = [];
    const store: InMemoryRequestStore = new InMemoryRequestStore({
      now: () => nowMs,
      sleep: async (ms) => {
        sleeps.push(ms);
        const end = nowMs + ms;
        if (pending && pending.at <= end) {
          const { processId, requestId, at } = pending;
          pending = undefined;
          nowMs = at;
          await store.complete(T, processId, requestId, { status: "DONE", result: "ok" });
        }
        nowMs = end;
      },
    });
    const turn = async (processId: string, requestId: string, tookMs: number): Promise<number> => {
      await store.putQueued(T, processId, requestId, "turn.compose");
      pending = { processId, requestId, at: nowMs + tookMs };
      const before = sleeps.length;
      const record = await store.waitFor(T, processId, requestId, 5_000, { firstReadAfterMs: "learned" });
      expect(record?.status).toBe("DONE");
      return sleeps[before]!;
    };

    // Act: a burst queues up on "busy" (400 ms each), then "quiet" answers in 10 ms
    for (let i = 0; i < 8; i++) await turn("busy", `b${i}`, 400);
    const quietFirsts: number[] = [];
    for (let i = 0; i < 5; i++) quietFirsts.push(await turn("quiet", `q${i}`, 10));
    const busyAfter = await turn("busy", "b-last", 400);

    // Assess: an unknown lane starts from the instance's estimate (the burst's), then follows its own
    expect(quietFirsts[0]).toBe(402);
    expect(quietFirsts[4]).toBe(12);
    expect(busyAfter).toBe(402);
  });
});

describe("LaneSettleTimes", () => {
  it("answers a lane's own quantile once it holds 4 samples, and the instance's before and for unknown lanes", () => {
    // Prepare
    const times = new LaneSettleTimes();
    for (let i = 0; i < 16; i++) times.sample(T, "busy", 480);

    // Act
    const unknown = times.firstReadMs(T, "quiet");
    for (let i = 0; i < 3; i++) times.sample(T, "quiet", 20);
    const afterThree = times.firstReadMs(T, "quiet");
    times.sample(T, "quiet", 20);

    // Assess
    expect(unknown).toBe(482);
    expect(afterThree).toBe(482);
    expect(times.firstReadMs(T, "quiet")).toBe(22);
    expect(times.firstReadMs(T, "busy")).toBe(482);
    expect(times.firstReadMs("another-tenant", "quiet")).toBe(482);
  });
});

describe("SettleTimeEstimate", () => {
  it("answers a high quantile of the recent samples, within its floor and cap", () => {
    // Prepare
    const estimate = new SettleTimeEstimate(50, 2, 500, 10, 0.8);
    const initial = estimate.firstReadMs();

    // Act
    for (const took of [10, 12, 11, 10, 13, 10, 11, 12, 10, 40]) estimate.sample(took);
    const recent = estimate.firstReadMs();
    for (let i = 0; i < 10; i++) estimate.sample(10_000);

    // Assess
    expect(initial).toBe(50);
    expect(recent).toBe(15);
    expect(estimate.firstReadMs()).toBe(500);
  });
});
