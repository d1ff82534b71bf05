import { afterEach, describe, expect, it, vi } from "vitest";
import { RequestWatcher } from "../../shared/processes/request-watcher.js";
import type { WatchedRequest } from "../../shared/processes/request-watcher.js";
import type { RequestRecord } from "../../shared/processes/request-store.js";
import { sleep } from "../../shared/support/retry-backoff.js";
import { InMemoryRequestStore } from "../../shared/processes/in-memory-request-store.js";

const T = "acme";

const queued = (requestId: string): RequestRecord => ({ requestId, processId: "p", kind: "turn.compose", status: "QUEUED" });
const done = (requestId: string): RequestRecord => ({
  requestId,
  processId: "p",
  kind: "turn.compose",
  status: "DONE",
  result: { id: requestId },
});

/** A store of records the test changes, and every batch the watcher read. */
function fakeStore() {
  const records = new Map<string, RequestRecord>();
  const batches: string[][] = [];
  let hang: Promise<void> | undefined;
  const readMany = async (requests: readonly WatchedRequest[]): Promise<(RequestRecord | undefined)[]> => {
    batches.push(requests.map((r) => r.requestId));
    if (hang) await hang;
    return requests.map((r) => records.get(r.requestId));
  };
  return { records, batches, readMany, hangReads: (until: Promise<void>) => (hang = until) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("RequestWatcher: one polling loop for every waiting caller", () => {
  it("reads 250 waited requests in batches of 100 per round, not 250 reads", async () => {
    // Prepare
    vi.useFakeTimers();
    const store = fakeStore();
    const watcher = new RequestWatcher({ readMany: store.readMany, pollStartMs: 20, pollMaxMs: 250, now: Date.now, sleep });
    const ids = Array.from({ length: 250 }, (_, i) => `r${i}`);
    ids.forEach((id) => store.records.set(id, queued(id)));

    // Act
    const waits = ids.map((requestId) => watcher.wait({ tenant: T, processId: "p", requestId }, 5_000));
    await vi.advanceTimersByTimeAsync(1);
    ids.forEach((id) => store.records.set(id, done(id)));
    await vi.advanceTimersByTimeAsync(300);
    const answers = await Promise.all(waits);

    // Assess
    expect(answers.map((a) => a?.status)).toEqual(ids.map(() => "DONE"));
    expect(store.batches.every((b) => b.length <= 100)).toBe(true);
    const reads = store.batches.reduce((n, b) => n + b.length, 0);
    expect(reads).toBeLessThan(250 * 3);
    expect(watcher.size).toBe(0);
  });

  it("many callers of the same request share its reads", async () => {
    // Prepare
    vi.useFakeTimers();
    const store = fakeStore();
    store.records.set("r1", queued("r1"));
    const watcher = new RequestWatcher({ readMany: store.readMany, pollStartMs: 20, pollMaxMs: 250, now: Date.now, sleep });

    // Act
    const waits = Array.from({ length: 200 }, () => watcher.wait({ tenant: T, processId: "p", requestId: "r1" }, 5_000));
    await vi.advanceTimersByTimeAsync(100);
    store.records.set("r1", done("r1"));
    await vi.advanceTimersByTimeAsync(300);
    const answers = await Promise.all(waits);

    // Assess: every caller has the result; each round read the request once
    expect(answers.every((a) => a?.status === "DONE")).toBe(true);
    expect(store.batches.every((b) => b.length === 1)).toBe(true);
  });

  it("answers at the deadline with the last record read even while a read hangs", async () => {
    // Prepare
    vi.useFakeTimers();
    const store = fakeStore();
    store.records.set("r1", queued("r1"));
    const watcher = new RequestWatcher({ readMany: store.readMany, pollStartMs: 20, pollMaxMs: 250, now: Date.now, sleep });
    const waiting = watcher.wait({ tenant: T, processId: "p", requestId: "r1" }, 2_000);
    await vi.advanceTimersByTimeAsync(50);
    store.hangReads(new Promise(() => undefined));

    // Act
    await vi.advanceTimersByTimeAsync(1_960);
    const settled = await Promise.race([waiting, Promise.resolve("still waiting")]);

    // Assess
    expect(settled).toEqual(queued("r1"));
  });

  it("a read that fails is tried again next round; the caller still gets the result", async () => {
    // Prepare
    vi.useFakeTimers();
    let calls = 0;
    const watcher = new RequestWatcher({
      readMany: async (requests) => {
        calls += 1;
        if (calls === 1) throw new Error("throttled");
        return requests.map((r) => done(r.requestId));
      },
      pollStartMs: 20,
      pollMaxMs: 250,
      now: Date.now,
      sleep,
    });

    // Act
    const waiting = watcher.wait({ tenant: T, processId: "p", requestId: "r1" }, 5_000);
    await vi.advanceTimersByTimeAsync(100);

    // Assess
    expect(await waiting).toEqual(done("r1"));
    expect(calls).toBe(2);
  });

  it("a caller arriving while the loop sleeps at its longest interval is read at once", async () => {
    // Prepare
    vi.useFakeTimers();
    const store = fakeStore();
    store.records.set("old", queued("old"));
    store.records.set("new", done("new"));
    const watcher = new RequestWatcher({ readMany: store.readMany, pollStartMs: 20, pollMaxMs: 10_000, now: Date.now, sleep });
    void watcher.wait({ tenant: T, processId: "p", requestId: "old" }, 60_000);
    await vi.advanceTimersByTimeAsync(30_000);

    // Act
    const waiting = watcher.wait({ tenant: T, processId: "p", requestId: "new" }, 60_000);
    await vi.advanceTimersByTimeAsync(5);
    const settled = await Promise.race([waiting, Promise.resolve("still waiting")]);

    // Assess
    expect(settled).toEqual(done("new"));
  });
});

describe("BaseRequestStore.waitFor on the shared watcher", () => {
  it("counts the callers waiting in this container", async () => {
    // Prepare
    vi.useFakeTimers();
    const store = new InMemoryRequestStore();
    await store.putQueued(T, "p", "r1", "turn.compose");

    // Act
    const waits = [store.waitFor(T, "p", "r1", 1_000), store.waitFor(T, "p", "r1", 1_000)];
    const during = store.waiting;
    await vi.advanceTimersByTimeAsync(1_000);
    await Promise.all(waits);

    // Assess
    expect(during).toBe(2);
    expect(store.waiting).toBe(0);
  });
});
