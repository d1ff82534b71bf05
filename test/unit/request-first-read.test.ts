import { describe, expect, it } from "vitest";
import { InMemoryRequestStore } from "../../shared/processes/in-memory-request-store.js";
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
  const get = store.get.bind(store);
  store.get = async (...args) => {
    reads += 1;
    return get(...args);
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
    const waited = store.waitFor(T, "p", "r", 5_000, { firstReadAfterMs: 40, beforeLongWait: async () => Promise.reject(new Error("no slot")) });

    // Assess
    await expect(waited).rejects.toThrow("no slot");
    expect(sleeps).toEqual([40]);
  });

  it("answers the QUEUED record at the deadline when the deadline comes before the expected time", async () => {
    // Prepare
    const { store, sleeps } = clockedStore();
    await store.putQueued(T, "p", "r", "turn.compose");

    // Act
    const record = await store.waitFor(T, "p", "r", 25, { firstReadAfterMs: 40, beforeLongWait: async () => Promise.reject(new Error("no slot")) });

    // Assess
    expect(record?.status).toBe("QUEUED");
    expect(sleeps).toEqual([25]);
  });
});

describe("SettleTimeEstimate", () => {
  it("creeps down while first reads find requests settled, and jumps past a request that took longer", () => {
    // Prepare
    const estimate = new SettleTimeEstimate(50, 5, 500);

    // Act
    for (let i = 0; i < 10; i++) estimate.settledByFirstRead();
    const afterHits = estimate.firstReadMs();
    estimate.settledLater(120);
    const afterMiss = estimate.firstReadMs();
    estimate.settledLater(10_000);

    // Assess
    expect(afterHits).toBeLessThan(50);
    expect(afterHits).toBeGreaterThan(35);
    expect(afterMiss).toBe(144);
    expect(estimate.firstReadMs()).toBe(500);
  });
});
