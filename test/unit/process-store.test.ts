import { describe, expect, it, vi } from "vitest";
import { InMemoryProcessStore } from "../../shared/processes/in-memory-process-store.js";
import type { NameClaim } from "../../shared/processes/process-store-base.js";
import { newProcess, toApiProcess } from "../../shared/processes/process.js";
import type { Process, PendingMessage } from "../../shared/processes/process.js";
import {
  ConcurrentUpdateConflict,
  NameTaken,
  ProcessNotFound,
  ProcessStateInvalid,
  ProcessTooLarge,
} from "../../shared/processes/process-errors.js";
import { APPLIED_REQUESTS_KEPT, hasApplied, markApplied } from "../../shared/processes/applied-requests.js";
import { SkillLocked } from "../../shared/errors.js";

const T = "acme";
const NOW = Date.parse("2025-03-01T10:00:00.000Z");

const aProcess = (overrides: Partial<Process> = {}): Process =>
  newProcess(
    {
      tenant: T,
      processId: "p-1",
      sessionId: "s-1",
      name: "chat",
      recipe: "default",
      engine: "ford",
      projectId: "proj",
      ...overrides,
    },
    new Date(NOW),
  );

const message = (id: string, text = "hello"): PendingMessage => ({
  id,
  sender: "_skill",
  text,
  kind: "action",
  at: new Date(NOW).toISOString(),
});

const appendPending =
  (id: string) =>
  (p: Process): Process => ({ ...p, pending: [...p.pending, message(id)] });

describe("InMemoryProcessStore create / get", () => {
  it("stores a new process with version 1 and reads it back", async () => {
    // Prepare
    const store = new InMemoryProcessStore();

    // Act
    const result = await store.create({ ...aProcess(), version: 7 });
    const read = await store.get(T, "p-1");

    // Assess
    expect(result.created).toBe(true);
    expect(read).toEqual({ ...aProcess(), version: 1 });
  });

  it("does not find an unknown id, nor the same id under another tenant", async () => {
    // Prepare
    const store = new InMemoryProcessStore();
    await store.create(aProcess());

    // Act
    const unknown = await store.get(T, "p-2");
    const otherTenant = await store.get("globex", "p-1");

    // Assess
    expect(unknown).toBeUndefined();
    expect(otherTenant).toBeUndefined();
  });

  it("rejects a second process with the same name in the same session", async () => {
    // Prepare
    const store = new InMemoryProcessStore();
    await store.create(aProcess());

    // Act
    const attempt = store.create(aProcess({ processId: "p-2" }));

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(NameTaken);
    await expect(attempt).rejects.toMatchObject({ code: "NAME_TAKEN", existingProcessId: "p-1" });
    expect(await store.get(T, "p-2")).toBeUndefined();
  });

  it("allows the same name in another session and in another tenant", async () => {
    // Prepare
    const store = new InMemoryProcessStore();
    await store.create(aProcess());

    // Act
    const otherSession = await store.create(aProcess({ processId: "p-2", sessionId: "s-2" }));
    const otherTenant = await store.create(aProcess({ tenant: "globex" }));

    // Assess
    expect(otherSession.created).toBe(true);
    expect(otherTenant.created).toBe(true);
    expect((await store.get("globex", "p-1"))?.tenant).toBe("globex");
  });

  it("returns the existing process when the same id, session and name are created again", async () => {
    // Prepare
    const store = new InMemoryProcessStore();
    await store.create(aProcess());
    await store.update(T, "p-1", appendPending("m-1"));

    store.processReads = 0;

    // Act
    const again = await store.create(aProcess({ recipe: "analyze" }));

    // Assess
    expect(again.created).toBe(false);
    // The failed put's conflict carries the stored process: no read to find it.
    expect(store.processReads).toBe(0);
    expect(again.process.version).toBe(2);
    expect(again.process.recipe).toBe("default");
    expect(again.process.pending.map((m) => m.id)).toEqual(["m-1"]);
  });

  it("rejects an existing id under another name and leaves that name free", async () => {
    // Prepare
    const store = new InMemoryProcessStore();
    await store.create(aProcess());

    // Act
    const attempt = store.create(aProcess({ name: "other" }));

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(NameTaken);
    const later = await store.create(aProcess({ processId: "p-9", name: "other" }));
    expect(later.created).toBe(true);
  });

  it("treats a claim without its process as taken while its create may still be running", async () => {
    // Prepare
    const store = new InMemoryProcessStore({ now: () => NOW, abandonedClaimAfterMs: 60_000 });
    store.seedClaim({ tenant: T, sessionId: "s-1", name: "chat", processId: "ghost", claimedAt: NOW - 5_000 });

    // Act
    const attempt = store.create(aProcess());

    // Assess
    await expect(attempt).rejects.toMatchObject({ code: "NAME_TAKEN", existingProcessId: "ghost" });
  });

  it("takes over a claim whose create died before writing the process", async () => {
    // Prepare
    const store = new InMemoryProcessStore({ now: () => NOW, abandonedClaimAfterMs: 60_000 });
    store.seedClaim({ tenant: T, sessionId: "s-1", name: "chat", processId: "ghost", claimedAt: NOW - 61_000 });

    // Act
    const result = await store.create(aProcess());

    // Assess
    expect(result.created).toBe(true);
    await expect(store.create(aProcess({ processId: "p-3" }))).rejects.toMatchObject({ existingProcessId: "p-1" });
  });

  it("undoes its process when a stalled create lost the name to a takeover", async () => {
    // Prepare: the claim is stolen between this create's claim write and its process write.
    class StallingStore extends InMemoryProcessStore {
      protected override async putProcessIfAbsent(process: Process): Promise<void> {
        const thief: NameClaim = { tenant: T, sessionId: "s-1", name: "chat", processId: "thief", claimedAt: NOW };
        const held = await this.readClaim({ tenant: T, sessionId: "s-1", name: "chat" });
        if (held) await this.replaceClaimIf(thief, held);
        return super.putProcessIfAbsent(process);
      }
    }
    const store = new StallingStore({ now: () => NOW });

    // Act
    const attempt = store.create(aProcess());

    // Assess
    await expect(attempt).rejects.toMatchObject({ code: "NAME_TAKEN", existingProcessId: "thief" });
    expect(await store.get(T, "p-1")).toBeUndefined();
  });

  it("hands out copies: changing a returned process does not change the stored one", async () => {
    // Prepare
    const store = new InMemoryProcessStore();
    await store.create(aProcess());
    const read = await store.get(T, "p-1");

    // Act
    read?.pending.push(message("sneaky"));

    // Assess
    expect((await store.get(T, "p-1"))?.pending).toEqual([]);
  });
});

describe("InMemoryProcessStore update", () => {
  it("writes the mutation, bumps the version and stamps updatedAt", async () => {
    // Prepare
    const later = NOW + 60_000;
    let clock = NOW;
    const store = new InMemoryProcessStore({ now: () => clock });
    await store.create(aProcess());
    clock = later;

    // Act
    const result = await store.update(T, "p-1", appendPending("m-1"));

    // Assess
    expect(result.changed).toBe(true);
    expect(result.process.version).toBe(2);
    expect(result.process.updatedAt).toBe(new Date(later).toISOString());
    expect(await store.get(T, "p-1")).toEqual(result.process);
  });

  it("writes nothing when the mutation returns undefined", async () => {
    // Prepare
    const store = new InMemoryProcessStore();
    await store.create(aProcess());

    // Act
    const result = await store.update(T, "p-1", () => undefined);

    // Assess
    expect(result).toEqual({ process: { ...aProcess(), version: 1 }, changed: false });
    expect(store.writeAttempts).toBe(0);
  });

  it("propagates an error thrown by the mutation and writes nothing", async () => {
    // Prepare
    const store = new InMemoryProcessStore();
    await store.create(aProcess());

    // Act
    const attempt = store.update(T, "p-1", (p) => {
      p.locked = true;
      throw new SkillLocked("typescript-style", "analyze");
    });

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(SkillLocked);
    expect(await store.get(T, "p-1")).toMatchObject({ locked: false, version: 1 });
    expect(store.writeAttempts).toBe(0);
  });

  it("re-applies the mutation on the winning state after losing a race, keeping both changes", async () => {
    // Prepare
    const store = new InMemoryProcessStore();
    await store.create(aProcess());
    store.injectConcurrentUpdate(T, "p-1", appendPending("theirs"));
    const mutate = vi.fn(appendPending("ours"));

    // Act
    const result = await store.update(T, "p-1", mutate);

    // Assess
    expect(mutate).toHaveBeenCalledTimes(2);
    expect(result.process.pending.map((m) => m.id)).toEqual(["theirs", "ours"]);
    expect(result.process.version).toBe(3);
    expect(await store.get(T, "p-1")).toEqual(result.process);
  });

  it("gives up with ConcurrentUpdateConflict after the configured attempts and writes nothing", async () => {
    // Prepare
    const store = new InMemoryProcessStore({ maxAttempts: 4 });
    await store.create(aProcess());
    store.injectConflicts(4);

    // Act
    const attempt = store.update(T, "p-1", appendPending("m-1"));

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(ConcurrentUpdateConflict);
    await expect(attempt).rejects.toMatchObject({ cause: { name: "ProcessVersionConflict", processId: "p-1", stored: { version: 1 } } });
    expect(store.writeAttempts).toBe(4);
    expect(await store.get(T, "p-1")).toMatchObject({ pending: [], version: 1 });
  });

  it("backs off with growing, jittered delays between attempts", async () => {
    // Prepare
    const delays: number[] = [];
    const store = new InMemoryProcessStore({
      backoff: { baseMs: 10, capMs: 50 },
      random: () => 0.999,
      sleep: async (ms) => {
        delays.push(ms);
      },
    });
    await store.create(aProcess());
    store.injectConflicts(5);

    // Act
    await store.update(T, "p-1", appendPending("m-1"));

    // Assess
    expect(delays).toEqual([9, 19, 39, 49, 49]);
  });

  it("reports an unknown process as ProcessNotFound, also for another tenant", async () => {
    // Prepare
    const store = new InMemoryProcessStore();
    await store.create(aProcess());

    // Act
    const attempt = store.update("globex", "p-1", appendPending("m-1"));

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(ProcessNotFound);
    await expect(attempt).rejects.toMatchObject({ code: "PROCESS_NOT_FOUND" });
  });

  it("keeps identity fields and createdAt whatever the mutation returns", async () => {
    // Prepare
    const store = new InMemoryProcessStore();
    await store.create(aProcess());

    // Act
    const result = await store.update(T, "p-1", (p) => ({
      ...p,
      tenant: "globex",
      processId: "p-2",
      sessionId: "s-9",
      name: "renamed",
      createdAt: "2000-01-01T00:00:00.000Z",
      version: 99,
      statusText: "working",
    }));

    // Assess
    expect(result.process).toMatchObject({
      tenant: T,
      processId: "p-1",
      sessionId: "s-1",
      name: "chat",
      version: 2,
      statusText: "working",
    });
    expect(result.process.createdAt).toBe(new Date(NOW).toISOString());
    expect(await store.get("globex", "p-2")).toBeUndefined();
  });

  it("refuses a mutation that breaks the schema", async () => {
    // Prepare
    const store = new InMemoryProcessStore();
    await store.create(aProcess());

    // Act
    const attempt = store.update(T, "p-1", (p) => ({ ...p, status: "SLEEPING" as Process["status"] }));

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(ProcessStateInvalid);
    expect((await store.get(T, "p-1"))?.version).toBe(1);
  });

  it("refuses to grow a process beyond the item size limit", async () => {
    // Prepare
    const store = new InMemoryProcessStore({ maxProcessBytes: 10_000 });
    await store.create(aProcess());

    // Act
    const attempt = store.update(T, "p-1", (p) => ({ ...p, pending: [message("big", "x".repeat(20_000))] }));

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(ProcessTooLarge);
    expect((await store.get(T, "p-1"))?.pending).toEqual([]);
  });
});

describe("InMemoryProcessStore update from an expected snapshot", () => {
  it("writes from the snapshot without reading when the process did not move", async () => {
    // Prepare
    const store = new InMemoryProcessStore();
    await store.create(aProcess());
    const snapshot = (await store.get(T, "p-1"))!;
    store.processReads = 0;

    // Act
    const result = await store.update(T, "p-1", appendPending("m-1"), { expected: snapshot });

    // Assess
    expect(store.processReads).toBe(0);
    expect(store.writeAttempts).toBe(1);
    expect(result).toMatchObject({ changed: true, process: { version: 2 } });
    expect((await store.get(T, "p-1"))?.pending.map((m) => m.id)).toEqual(["m-1"]);
  });

  it("hands the mutation a copy: the caller's snapshot stays as it was", async () => {
    // Prepare
    const store = new InMemoryProcessStore();
    await store.create(aProcess());
    const snapshot = (await store.get(T, "p-1"))!;

    // Act
    await store.update(
      T,
      "p-1",
      (p) => {
        p.pending.push(message("m-1"));
        return p;
      },
      { expected: snapshot },
    );

    // Assess
    expect(snapshot.pending).toEqual([]);
    expect(snapshot.version).toBe(1);
  });

  it("re-applies on the stored state the conflict carries when the process changed after the snapshot, without reading", async () => {
    // Prepare
    const store = new InMemoryProcessStore();
    await store.create(aProcess());
    const snapshot = (await store.get(T, "p-1"))!;
    await store.update(T, "p-1", appendPending("theirs"));
    store.processReads = 0;
    const mutate = vi.fn(appendPending("ours"));

    // Act
    const result = await store.update(T, "p-1", mutate, { expected: snapshot });

    // Assess
    expect(mutate).toHaveBeenCalledTimes(2);
    expect(store.processReads).toBe(0);
    expect(result.process.pending.map((m) => m.id)).toEqual(["theirs", "ours"]);
    expect(result.process.version).toBe(3);
    expect(await store.get(T, "p-1")).toEqual(result.process);
  });

  it("reads the process again when a conflict carries no stored item (as dynalite answers)", async () => {
    // Prepare
    const store = new InMemoryProcessStore();
    store.conflictsCarryStored = false;
    await store.create(aProcess());
    const snapshot = (await store.get(T, "p-1"))!;
    await store.update(T, "p-1", appendPending("theirs"));
    store.processReads = 0;
    const mutate = vi.fn(appendPending("ours"));

    // Act
    const result = await store.update(T, "p-1", mutate, { expected: snapshot });

    // Assess
    expect(mutate).toHaveBeenCalledTimes(2);
    expect(store.processReads).toBe(1);
    expect(result.process.pending.map((m) => m.id)).toEqual(["theirs", "ours"]);
    expect(result.process.version).toBe(3);
  });

  it("re-applies on top of a write that lands between the snapshot and its write", async () => {
    // Prepare
    const store = new InMemoryProcessStore();
    await store.create(aProcess());
    const snapshot = (await store.get(T, "p-1"))!;
    store.injectConcurrentUpdate(T, "p-1", appendPending("theirs"));

    // Act
    const result = await store.update(T, "p-1", appendPending("ours"), { expected: snapshot });

    // Assess
    expect(store.writeAttempts).toBe(2);
    expect(result.process.pending.map((m) => m.id)).toEqual(["theirs", "ours"]);
    expect(await store.get(T, "p-1")).toEqual(result.process);
  });

  it("decides again on the fresh state: a request applied meanwhile is not applied twice", async () => {
    // Prepare
    let clock = NOW;
    const store = new InMemoryProcessStore({ now: () => (clock += 1000) });
    await store.create(aProcess());
    const snapshot = (await store.get(T, "p-1"))!;
    const once = (p: Process): Process | undefined => (hasApplied(p, "r-1") ? undefined : markApplied(appendPending("r-1")(p), "r-1"));
    await store.update(T, "p-1", once);

    // Act
    const result = await store.update(T, "p-1", once, { expected: snapshot });

    // Assess
    expect(result.changed).toBe(false);
    expect(result.process.pending.map((m) => m.id)).toEqual(["r-1"]);
    expect(result.process.version).toBe(2);
  });

  it("ignores a snapshot of another process and reads the addressed one", async () => {
    // Prepare
    const store = new InMemoryProcessStore();
    await store.create(aProcess());
    await store.create(aProcess({ processId: "p-2", name: "other" }));
    const other = (await store.get(T, "p-2"))!;
    store.processReads = 0;

    // Act
    const result = await store.update(T, "p-1", appendPending("m-1"), { expected: other });

    // Assess
    expect(store.processReads).toBe(1);
    expect(result.process).toMatchObject({ processId: "p-1", name: "chat", version: 2 });
    expect((await store.get(T, "p-2"))?.pending).toEqual([]);
  });
});

describe("toApiProcess", () => {
  it("exposes exactly the API fields", () => {
    // Prepare
    const p = aProcess({
      userId: "alice",
      mode: "plan",
      statusText: "busy",
      lastOutput: "done",
      turn: { turnId: "t-1", oneShotSkills: ["x"] },
      appliedRequests: ["r-1"],
      guard: { type: "inline", source: "vance.guard.pass()" },
      children: [{ processId: "c-1", name: "code-review-1" }],
      allowedSkillsOverride: [],
      activeSkills: [
        {
          name: "typescript-style",
          resolvedFromScope: "RESOURCE",
          oneShot: false,
          fromRecipe: true,
          activatedAt: new Date(NOW).toISOString(),
          args: null,
          activatedBy: "recipe",
        },
      ],
    });

    // Act
    const api = toApiProcess(p);

    // Assess
    expect(Object.keys(api).sort()).toEqual(
      [
        "processId",
        "sessionId",
        "name",
        "recipe",
        "projectId",
        "activeSkills",
        "allowedSkillsOverride",
        "locked",
        "pending",
        "guard",
        "parentProcessId",
        "children",
        "status",
        "version",
      ].sort(),
    );
    expect(api).toMatchObject({
      processId: "p-1",
      allowedSkillsOverride: [],
      guard: { type: "inline" },
      children: [{ processId: "c-1" }],
      version: 1,
    });
    expect(api.activeSkills[0]).toEqual(p.activeSkills[0]);
  });
});

describe("applied requests", () => {
  it("remembers the newest requestIds only, without duplicates", () => {
    // Prepare
    let p = aProcess();

    // Act
    for (let i = 0; i < APPLIED_REQUESTS_KEPT + 5; i++) p = markApplied(p, `r-${i}`);
    p = markApplied(p, "r-10");

    // Assess
    expect(p.appliedRequests).toHaveLength(APPLIED_REQUESTS_KEPT);
    expect(hasApplied(p, "r-4")).toBe(false);
    expect(hasApplied(p, `r-${APPLIED_REQUESTS_KEPT + 4}`)).toBe(true);
    expect(p.appliedRequests.at(-1)).toBe("r-10");
    expect(p.appliedRequests.filter((id) => id === "r-10")).toHaveLength(1);
  });
});

describe("InMemoryProcessStore: sessions per user", () => {
  it("claims names per (tenant, user, session) and lists one user's session only", async () => {
    // Prepare
    const store = new InMemoryProcessStore({ now: () => NOW });
    await store.create(aProcess({ processId: "p-a", userId: "alice" }));
    await store.create(aProcess({ processId: "p-b", userId: "bob" }));
    await store.create(aProcess({ processId: "p-a2", userId: "alice", name: "second" }));
    await store.create(aProcess({ processId: "p-other", userId: "alice", sessionId: "s-2" }));

    // Act
    const alices = await store.listSession(T, "alice", "s-1");
    const bobs = await store.listSession(T, "bob", "s-1");
    const nobodys = await store.listSession(T, "", "s-1");
    const foreign = await store.listSession("globex", "alice", "s-1");

    // Assess
    expect(alices.map((p) => p.processId).sort()).toEqual(["p-a", "p-a2"]);
    expect(bobs.map((p) => p.processId)).toEqual(["p-b"]);
    expect(nobodys).toEqual([]);
    expect(foreign).toEqual([]);
    await expect(store.create(aProcess({ processId: "p-b2", userId: "bob" }))).rejects.toMatchObject({
      code: "NAME_TAKEN",
      existingProcessId: "p-b",
    });
  });

  it("does not treat another user's process with the same id, session and name as its own earlier create", async () => {
    // Prepare
    const store = new InMemoryProcessStore({ now: () => NOW });
    await store.create(aProcess({ processId: "p-1", userId: "alice" }));

    // Act
    const attempt = store.create(aProcess({ processId: "p-1", userId: "bob" }));

    // Assess
    await expect(attempt).rejects.toMatchObject({ code: "NAME_TAKEN" });
    expect(await store.listSession(T, "bob", "s-1")).toEqual([]);
  });

  it("lists at most the limit, and nothing for a claim whose create died", async () => {
    // Prepare
    const store = new InMemoryProcessStore({ now: () => NOW });
    store.seedClaim({ tenant: T, owner: "alice", sessionId: "s-1", name: "ghost", processId: "gone", claimedAt: NOW });
    for (let i = 0; i < 3; i++) await store.create(aProcess({ processId: `p-${i}`, userId: "alice", name: `n-${i}` }));

    // Act
    const limited = await store.listSession(T, "alice", "s-1", 2);
    const all = await store.listSession(T, "alice", "s-1");

    // Assess
    expect(limited.length).toBeLessThanOrEqual(2);
    expect(all.map((p) => p.processId)).toEqual(["p-0", "p-1", "p-2"]);
  });
});
