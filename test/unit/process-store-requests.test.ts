import { afterEach, describe, expect, it, vi } from "vitest";
import { InMemoryRequestStore } from "../../shared/processes/in-memory-request-store.js";
import { RequestNotFound } from "../../shared/processes/process-errors.js";
import { toApiRequest } from "../../shared/processes/request-store.js";

const T = "acme";
const NOW = Date.parse("2025-03-01T10:00:00.000Z");

afterEach(() => {
  vi.useRealTimers();
});

describe("InMemoryRequestStore", () => {
  it("records a new request as QUEUED with a 24 h expiry", async () => {
    // Prepare
    const store = new InMemoryRequestStore({ now: () => NOW });

    // Act
    const put = await store.putQueued(T, "p-1", "r-1", "skill.activate");

    // Assess
    expect(put).toEqual({ created: true, record: { requestId: "r-1", processId: "p-1", kind: "skill.activate", status: "QUEUED" } });
    expect(await store.get(T, "p-1", "r-1")).toEqual(put.record);
    expect(store.expiresAtOf(T, "p-1", "r-1")).toBe(NOW / 1000 + 24 * 3600);
  });

  it("never resets a known request: the same requestId again returns the stored record", async () => {
    // Prepare
    const store = new InMemoryRequestStore();
    await store.putQueued(T, "p-1", "r-1", "skill.activate");
    await store.complete(T, "p-1", "r-1", { status: "DONE", result: { activeSkills: [] } });

    // Act
    const again = await store.putQueued(T, "p-1", "r-1", "skill.activate");

    // Assess
    expect(again.created).toBe(false);
    expect(again.record).toMatchObject({ status: "DONE", result: { activeSkills: [] } });
  });

  it("completes with a result, and the first outcome wins", async () => {
    // Prepare
    const store = new InMemoryRequestStore();
    await store.putQueued(T, "p-1", "r-1", "skill.activate");

    // Act
    const done = await store.complete(T, "p-1", "r-1", { status: "DONE", result: { turnScheduled: true, note: undefined } });
    const late = await store.complete(T, "p-1", "r-1", { status: "FAILED", error: { code: "INTERNAL", message: "boom" } });

    // Assess
    expect(done).toEqual({ requestId: "r-1", processId: "p-1", kind: "skill.activate", status: "DONE", result: { turnScheduled: true } });
    expect(late).toEqual(done);
    expect(await store.get(T, "p-1", "r-1")).toEqual(done);
  });

  it("completes with an error", async () => {
    // Prepare
    const store = new InMemoryRequestStore();
    await store.putQueued(T, "p-1", "r-1", "skill.clear");

    // Act
    const failed = await store.complete(T, "p-1", "r-1", { status: "FAILED", error: { code: "SKILL_LOCKED", message: "locked" } });

    // Assess
    expect(failed).toEqual({
      requestId: "r-1",
      processId: "p-1",
      kind: "skill.clear",
      status: "FAILED",
      error: { code: "SKILL_LOCKED", message: "locked" },
    });
    expect(toApiRequest(failed)).toEqual({ requestId: "r-1", status: "FAILED", error: { code: "SKILL_LOCKED", message: "locked" } });
  });

  it("refuses to complete an unknown request, and keeps tenants apart", async () => {
    // Prepare
    const store = new InMemoryRequestStore();
    await store.putQueued(T, "p-1", "r-1", "skill.activate");

    // Act
    const attempt = store.complete("globex", "p-1", "r-1", { status: "DONE", result: 1 });

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(RequestNotFound);
    await expect(attempt).rejects.toMatchObject({ code: "REQUEST_NOT_FOUND" });
    expect(await store.get("globex", "p-1", "r-1")).toBeUndefined();
    expect((await store.get(T, "p-1", "r-1"))?.status).toBe("QUEUED");
  });

  it("shapes the API view without internal fields", async () => {
    // Prepare
    const store = new InMemoryRequestStore();
    await store.putQueued(T, "p-1", "r-1", "turn.compose");
    const done = await store.complete(T, "p-1", "r-1", { status: "DONE", result: undefined });

    // Act
    const api = toApiRequest(done);

    // Assess
    expect(api).toEqual({ requestId: "r-1", status: "DONE", result: null });
  });
});

describe("InMemoryRequestStore.waitFor", () => {
  it("returns as soon as the lane completes the request", async () => {
    // Prepare
    vi.useFakeTimers();
    const store = new InMemoryRequestStore();
    await store.putQueued(T, "p-1", "r-1", "skill.activate");
    setTimeout(() => void store.complete(T, "p-1", "r-1", { status: "DONE", result: { ok: true } }), 300);

    // Act
    const waiting = store.waitFor(T, "p-1", "r-1", 5_000);
    await vi.advanceTimersByTimeAsync(600);
    const settled = await Promise.race([waiting, Promise.resolve("still waiting")]);

    // Assess
    expect(settled).toMatchObject({ status: "DONE", result: { ok: true } });
  });

  it("gives up at the timeout with the QUEUED record, polling with growing intervals", async () => {
    // Prepare
    vi.useFakeTimers();
    const store = new InMemoryRequestStore();
    await store.putQueued(T, "p-1", "r-1", "skill.activate");
    const reads = vi.spyOn(store as unknown as { readItems: () => Promise<unknown[]> }, "readItems");

    // Act
    const waiting = store.waitFor(T, "p-1", "r-1", 3_000);
    await vi.advanceTimersByTimeAsync(3_000);
    const result = await waiting;

    // Assess: a fixed 20 ms poll would have read 150 times.
    expect(result).toMatchObject({ status: "QUEUED" });
    expect(reads.mock.calls.length).toBeGreaterThan(5);
    expect(reads.mock.calls.length).toBeLessThan(30);
  });

  it("returns undefined for a request that never existed", async () => {
    // Prepare
    vi.useFakeTimers();
    const store = new InMemoryRequestStore();

    // Act
    const waiting = store.waitFor(T, "p-1", "nope", 500);
    await vi.advanceTimersByTimeAsync(500);

    // Assess
    expect(await waiting).toBeUndefined();
  });

  it("stops early when the caller aborts", async () => {
    // Prepare
    vi.useFakeTimers();
    const store = new InMemoryRequestStore();
    await store.putQueued(T, "p-1", "r-1", "skill.activate");
    const controller = new AbortController();

    // Act
    const waiting = store.waitFor(T, "p-1", "r-1", 20_000, { signal: controller.signal });
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    await vi.advanceTimersByTimeAsync(0);
    const settled = await Promise.race([waiting, Promise.resolve("still waiting")]);

    // Assess
    expect(settled).toMatchObject({ status: "QUEUED" });
  });

  it("scopes requestIds to their process: the same id on another process is another request", async () => {
    // Prepare
    const store = new InMemoryRequestStore();
    await store.putQueued(T, "p-1", "r-1", "skill.activate", "fp-a");
    await store.complete(T, "p-1", "r-1", { status: "DONE", result: "first" });

    // Act
    const other = await store.putQueued(T, "p-2", "r-1", "turn.compose", "fp-b");

    // Assess
    expect(other).toEqual({
      created: true,
      record: { requestId: "r-1", processId: "p-2", kind: "turn.compose", fingerprint: "fp-b", status: "QUEUED" },
    });
    expect(await store.get(T, "p-1", "r-1")).toMatchObject({ status: "DONE", result: "first", fingerprint: "fp-a" });
    expect(await store.get(T, "p-3", "r-1")).toBeUndefined();
  });

  it("leaves the fingerprint out of the API view", async () => {
    // Prepare
    const store = new InMemoryRequestStore();
    const { record } = await store.putQueued(T, "p-1", "r-1", "skill.activate", "fp-a");

    // Act
    const view = toApiRequest(record);

    // Assess
    expect(view).toEqual({ requestId: "r-1", status: "QUEUED" });
  });
});
