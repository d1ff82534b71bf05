import { describe, expect, it } from "vitest";
import { InvalidRequest } from "../../shared/errors.js";
import type { HostCallContext } from "../../shared/sandbox/host-call.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { ScriptWorkspace, WORKSPACE_PREFIX, WorkspaceBudget } from "../../shared/scripts/script-workspace.js";
import { WorkspaceQuotaExceeded } from "../../shared/scripts/workspace-errors.js";

/**
 * Issue 11: a plain member's script overwrote and deleted project documents his PUT may not
 * touch, and 4 invocations stored 32 MiB. The workspace is now its own member-writable area
 * (`_workspace/`), and a project's workspace has a quota across invocations.
 */

const TENANT = "acme";
const PROJECT = "web";

const fresh = async () => {
  const store = new InMemoryDocumentStore();
  // Documents of the project that only a project-admin may write.
  await store.put(TENANT, PROJECT, "workspace/report.md", "admin's report");
  await store.put(TENANT, PROJECT, "_vance/skills/kit/SKILL.md", "---\nname: kit\n---\n");
  await store.put(TENANT, PROJECT, "notes/plan.md", "the plan");
  return store;
};

/** The guest-facing functions of one invocation, called as the bridge would (args only matter here). */
const invocation = (store: InMemoryDocumentStore, limits: Parameters<typeof WorkspaceBudget.with>[0] = {}, project = PROJECT) => {
  const bindings = new ScriptWorkspace(store, TENANT, project, WorkspaceBudget.with(limits)).bindings();
  const call = (name: keyof typeof bindings) => (args: unknown[]) =>
    bindings[name](args, { path: `vance.workspace.${name}`, depth: 0 } as HostCallContext);
  return { read: call("read"), write: call("write"), list: call("list"), delete: call("delete") };
};

describe("the workspace is its own area: a script never reaches other project documents", () => {
  it("writes, reads and deletes below _workspace/ only, even for names that match project documents", async () => {
    // Prepare
    const store = await fresh();
    const ws = invocation(store);

    // Act
    await ws.write(["report.md", "overwritten?"]);
    await ws.write(["workspace/report.md", "overwritten?"]);
    await ws.write(["_vance/skills/kit/SKILL.md", "overwritten?"]);
    const deleted = await Promise.all([ws.delete(["report.md"]), ws.delete(["notes/plan.md"]), ws.delete(["workspace/report.md"])]);

    // Assess
    expect(new TextDecoder().decode((await store.get(TENANT, PROJECT, "workspace/report.md"))?.body)).toBe("admin's report");
    expect(new TextDecoder().decode((await store.get(TENANT, PROJECT, "_vance/skills/kit/SKILL.md"))?.body)).toContain("name: kit");
    expect(await store.get(TENANT, PROJECT, "notes/plan.md")).toBeDefined();
    expect(deleted).toEqual([true, false, true]);
    expect((await store.list(TENANT, PROJECT, "")).map((d) => d.path).filter((p) => p.startsWith(WORKSPACE_PREFIX))).toEqual([
      "_workspace/_vance/skills/kit/SKILL.md",
    ]);
  });

  it("does not list or read project documents outside the area", async () => {
    // Prepare
    const store = await fresh();
    const ws = invocation(store);

    // Act
    const listed = await ws.list([]);
    const read = await ws.read(["report.md"]);

    // Assess
    expect(listed).toEqual([]);
    expect(read).toBeNull();
  });

  it.each([
    ["a parent step", "../workspace/report.md"],
    ["an encoded parent step", "%2e%2e/notes/plan.md"],
    ["a double-encoded parent step", "%252e%252e/notes/plan.md"],
    ["a leading slash", "/workspace/report.md"],
    ["a backslash", "..\\notes\\plan.md"],
    ["a dot segment inside", "a/./../../notes/plan.md"],
    ["an empty path", ""],
  ])("refuses %s with INVALID_REQUEST and touches nothing", async (_label, path) => {
    // Prepare
    const store = await fresh();
    const ws = invocation(store);
    const before = (await store.list(TENANT, PROJECT, "")).map((d) => `${d.path}:${d.etag}`);

    // Act
    const outcomes = await Promise.all([
      Promise.resolve()
        .then(() => ws.write([path, "x"]))
        .catch((e: unknown) => e),
      Promise.resolve()
        .then(() => ws.delete([path]))
        .catch((e: unknown) => e),
    ]);

    // Assess
    for (const outcome of outcomes) expect(outcome).toBeInstanceOf(InvalidRequest);
    expect((await store.list(TENANT, PROJECT, "")).map((d) => `${d.path}:${d.etag}`)).toEqual(before);
  });
});

describe("per-project workspace quota across invocations", () => {
  it("refuses the write that would take the project's workspace past its bytes, whatever the invocation", async () => {
    // Prepare
    const store = await fresh();
    const limits = { maxProjectBytes: 100 };

    // Act: separate invocations, each well within its own per-invocation budget.
    await invocation(store, limits).write(["a.txt", "x".repeat(40)]);
    await invocation(store, limits).write(["b.txt", "x".repeat(40)]);
    const third = await Promise.resolve(invocation(store, limits).write(["c.txt", "x".repeat(40)])).catch((e: unknown) => e);

    // Assess
    expect(third).toBeInstanceOf(WorkspaceQuotaExceeded);
    expect((third as Error).message).toContain("100 bytes");
    expect(await store.get(TENANT, PROJECT, "_workspace/c.txt")).toBeUndefined();
  });

  it("counts an overwrite once, and a delete frees its bytes", async () => {
    // Prepare
    const store = await fresh();
    const limits = { maxProjectBytes: 100 };
    await invocation(store, limits).write(["a.txt", "x".repeat(60)]);

    // Act
    await invocation(store, limits).write(["a.txt", "y".repeat(90)]);
    const refused = await Promise.resolve(invocation(store, limits).write(["b.txt", "z".repeat(20)])).catch((e: unknown) => e);
    await invocation(store, limits).delete(["a.txt"]);
    const accepted = await invocation(store, limits).write(["b.txt", "z".repeat(20)]);

    // Assess
    expect(refused).toBeInstanceOf(WorkspaceQuotaExceeded);
    expect(accepted).toEqual({ path: "b.txt", size: 20 });
  });

  it("caps the number of documents, and another project has a quota of its own", async () => {
    // Prepare
    const store = await fresh();
    const limits = { maxProjectDocuments: 2 };
    await invocation(store, limits).write(["1.txt", "1"]);
    await invocation(store, limits).write(["2.txt", "2"]);

    // Act
    const third = await Promise.resolve(invocation(store, limits).write(["3.txt", "3"])).catch((e: unknown) => e);
    const overwrite = await invocation(store, limits).write(["2.txt", "two"]);
    const elsewhere = await invocation(store, limits, "api").write(["3.txt", "3"]);

    // Assess
    expect(third).toBeInstanceOf(WorkspaceQuotaExceeded);
    expect(overwrite).toEqual({ path: "2.txt", size: 3 });
    expect(elsewhere).toEqual({ path: "3.txt", size: 1 });
  });

  it("uses a 16 MiB default: sixteen 1 MiB invocations fit exactly, one byte more does not", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const chunk = "x".repeat(1024 * 1024);
    for (let i = 0; i < 16; i++) await new ScriptWorkspace(store, TENANT, PROJECT, new WorkspaceBudget()).write(`part-${i}.txt`, chunk);

    // Act
    const more = await new ScriptWorkspace(store, TENANT, PROJECT, new WorkspaceBudget())
      .write("one-more.txt", "x")
      .catch((e: unknown) => e);

    // Assess
    expect(more).toBeInstanceOf(WorkspaceQuotaExceeded);
  });
});
