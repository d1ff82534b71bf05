import { describe, expect, it, vi } from "vitest";
import { applyOnce } from "../../shared/processes/apply-once.js";
import type { OnceRequest } from "../../shared/processes/apply-once.js";
import { InMemoryProcessStore } from "../../shared/processes/in-memory-process-store.js";
import { markApplied } from "../../shared/processes/applied-requests.js";
import { newProcess } from "../../shared/processes/process.js";
import type { PendingMessage, Process } from "../../shared/processes/process.js";
import { ProcessNotFound } from "../../shared/processes/process-errors.js";
import { InvalidRequest } from "../../shared/errors.js";

const T = "acme";
const NOW = new Date("2025-03-01T10:00:00.000Z");
const REQ: OnceRequest = { tenant: T, processId: "p-1", requestId: "r-1" };

const aProcess = (): Process =>
  newProcess({ tenant: T, processId: "p-1", sessionId: "s-1", name: "chat", recipe: "default", engine: "ford", projectId: "proj" }, NOW);

const message = (id: string): PendingMessage => ({ id, sender: "_skill", text: id, kind: "action", at: NOW.toISOString() });

async function storeWithProcess(): Promise<{ store: InMemoryProcessStore; snapshot: Process }> {
  const store = new InMemoryProcessStore({ now: () => NOW.getTime() });
  await store.create(aProcess());
  return { store, snapshot: (await store.get(T, "p-1"))! };
}

/** Appends one pending message per attempt and answers with what was stored. */
const appendWrite = (id: string) => ({
  mutate: (current: Process) => ({
    process: { ...current, pending: [...current.pending, message(id)] },
    answer: (stored: Process) => `applied v${stored.version}`,
  }),
});

describe("applyOnce", () => {
  it("writes the mutation and the requestId in one write and answers from the stored process", async () => {
    // Prepare
    const { store } = await storeWithProcess();
    const prepare = vi.fn(async () => appendWrite("m-1"));

    // Act
    const answer = await applyOnce(store, REQ, { alreadyApplied: () => "already", prepare });

    // Assess
    expect(answer).toBe("applied v2");
    expect(prepare).toHaveBeenCalledTimes(1);
    expect(store.writeAttempts).toBe(1);
    expect(await store.get(T, "p-1")).toMatchObject({ version: 2, pending: [message("m-1")], appliedRequests: ["r-1"] });
  });

  it("answers a redelivery from the snapshot, without preparing or writing", async () => {
    // Prepare
    const { store } = await storeWithProcess();
    await store.update(T, "p-1", (p) => markApplied(p, "r-1"));
    const prepare = vi.fn(async () => appendWrite("m-1"));

    // Act
    const answer = await applyOnce(store, REQ, { alreadyApplied: (p) => `already v${p.version}`, prepare });

    // Assess
    expect(answer).toBe("already v2");
    expect(prepare).not.toHaveBeenCalled();
    expect((await store.get(T, "p-1"))?.version).toBe(2);
  });

  it("reads the process when no snapshot is given, and reports an unknown one as ProcessNotFound", async () => {
    // Prepare
    const store = new InMemoryProcessStore();

    // Act
    const attempt = applyOnce(store, REQ, { alreadyApplied: () => "already", prepare: async () => appendWrite("m-1") });

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(ProcessNotFound);
  });

  it("answers without writing, and without recording the request, when prepare needs no write", async () => {
    // Prepare
    const { store } = await storeWithProcess();

    // Act
    const answer = await applyOnce(store, REQ, { alreadyApplied: () => "already", prepare: async () => ({ answer: "nothing to do" }) });

    // Assess
    expect(answer).toBe("nothing to do");
    expect(store.writeAttempts).toBe(0);
    expect((await store.get(T, "p-1"))?.appliedRequests).toEqual([]);
  });

  it("writes nothing when prepare throws", async () => {
    // Prepare
    const { store } = await storeWithProcess();

    // Act
    const attempt = applyOnce(store, REQ, {
      alreadyApplied: () => "already",
      prepare: async () => {
        throw new InvalidRequest("no");
      },
    });

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(InvalidRequest);
    expect(store.writeAttempts).toBe(0);
  });

  it("re-applies on the state that won a race and answers with the attempt that was stored", async () => {
    // Prepare
    const { store, snapshot } = await storeWithProcess();
    store.injectConcurrentUpdate(T, "p-1", (p) => ({ ...p, pending: [...p.pending, message("theirs")] }));
    const mutate = vi.fn((current: Process) => ({
      process: { ...current, pending: [...current.pending, message("ours")] },
      answer: (stored: Process) => stored.pending.map((m) => m.id).join(","),
    }));

    // Act
    const answer = await applyOnce(store, REQ, {
      snapshot,
      alreadyApplied: () => "already",
      prepare: async () => ({ mutate, fromSnapshot: true }),
    });

    // Assess
    expect(mutate).toHaveBeenCalledTimes(2);
    expect(answer).toBe("theirs,ours");
    expect(await store.get(T, "p-1")).toMatchObject({ version: 3, appliedRequests: ["r-1"] });
  });

  it("answers with the write's alreadyApplied when a concurrent delivery of the same request stored first", async () => {
    // Prepare
    const { store, snapshot } = await storeWithProcess();
    // The other delivery wrote at another time: not our own write whose reply was lost.
    store.injectConcurrentUpdate(T, "p-1", (p) =>
      markApplied({ ...p, pending: [message("m-1")], updatedAt: "2025-03-01T10:00:01.000Z" }, "r-1"),
    );

    // Act
    const answer = await applyOnce(store, REQ, {
      snapshot,
      alreadyApplied: () => "already (snapshot)",
      prepare: async () => ({ ...appendWrite("m-1"), fromSnapshot: true, alreadyApplied: (p: Process) => `already (write) v${p.version}` }),
    });

    // Assess
    expect(answer).toBe("already (write) v2");
    expect(await store.get(T, "p-1")).toMatchObject({ version: 2, pending: [message("m-1")], appliedRequests: ["r-1"] });
  });

  it("answers as applied when the state found after a conflict is the one its own attempt wrote (a lost reply)", async () => {
    // Prepare
    const { store, snapshot } = await storeWithProcess();
    // Stored exactly as our attempt would write it (same clock): indistinguishable from our write whose reply was lost.
    store.injectConcurrentUpdate(T, "p-1", (p) => markApplied({ ...p, pending: [message("m-1")] }, "r-1"));

    // Act
    const answer = await applyOnce(store, REQ, {
      snapshot,
      alreadyApplied: () => "already",
      prepare: async () => ({ ...appendWrite("m-1"), fromSnapshot: true }),
    });

    // Assess
    expect(answer).toBe("applied v2");
  });

  it("falls back to the steps' alreadyApplied when the write has none", async () => {
    // Prepare
    const { store, snapshot } = await storeWithProcess();
    store.injectConcurrentUpdate(T, "p-1", (p) => markApplied(p, "r-1"));

    // Act
    const answer = await applyOnce(store, REQ, {
      snapshot,
      alreadyApplied: (p) => `already v${p.version}`,
      prepare: async () => appendWrite("m-1"),
    });

    // Assess
    expect(answer).toBe("already v2");
  });

  it("writes from the snapshot without reading when asked to, and reads again otherwise", async () => {
    // Prepare
    const { store, snapshot } = await storeWithProcess();
    const other = await storeWithProcess();
    store.processReads = 0;
    other.store.processReads = 0;

    // Act
    await applyOnce(store, REQ, {
      snapshot,
      alreadyApplied: () => "already",
      prepare: async () => ({ ...appendWrite("m-1"), fromSnapshot: true }),
    });
    await applyOnce(other.store, REQ, {
      snapshot: other.snapshot,
      alreadyApplied: () => "already",
      prepare: async () => appendWrite("m-1"),
    });

    // Assess
    expect(store.processReads).toBe(0);
    expect(other.store.processReads).toBe(1);
  });
});
