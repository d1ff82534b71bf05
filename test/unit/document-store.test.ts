import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { InvalidRequest } from "../../shared/errors.js";
import { textOf } from "../../shared/documents/document-store.js";
import { strictUtf8 } from "../../shared/documents/document-body.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { StoreDocumentLayer } from "../../shared/documents/store-document-layer.js";
import { BundledDocumentLayer, bundledDocuments, resolveBundledRoot } from "../../shared/documents/bundled-document-layer.js";
import { ENV } from "../../shared/config/config.js";
import { bundledFixture, removeBundledFixtures, writeBundledFixture } from "../support/bundled-fixture.js";

const md5 = (text: string | Uint8Array) => createHash("md5").update(text).digest("hex");

afterAll(removeBundledFixtures);

describe("InMemoryDocumentStore", () => {
  it("stores text and returns it with an unquoted md5 ETag", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();

    // Act
    const ref = await store.put("acme", "_tenant", "notes/a.md", "héllo", "text/markdown");
    const doc = await store.get("acme", "_tenant", "notes/a.md");

    // Assess
    expect(ref).toEqual({ path: "notes/a.md", etag: md5("héllo"), size: 6 });
    expect(doc && textOf(doc)).toBe("héllo");
    expect(doc?.etag).toBe(ref.etag);
    expect(doc?.etag).not.toContain('"');
    expect(doc?.contentType).toBe("text/markdown");
  });

  it("keeps binary bodies byte for byte and is not affected by callers mutating them", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const bytes = new Uint8Array([0, 255, 1, 254]);
    await store.put("acme", "p1", "bin/x", bytes);
    bytes[0] = 42;

    // Act
    const first = await store.get("acme", "p1", "bin/x");
    first!.body[1] = 7;
    const second = await store.get("acme", "p1", "bin/x");

    // Assess
    expect([...second!.body]).toEqual([0, 255, 1, 254]);
    expect(second!.etag).toBe(md5(new Uint8Array([0, 255, 1, 254])));
  });

  it("keeps a file's mode with the document and with each of its versions", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();

    // Act
    await store.put("acme", "p1", "_vance/skills/a/run.sh", "v1", undefined, { mode: 0o755 });
    await store.put("acme", "p1", "_vance/skills/a/run.sh", "v2", undefined, { mode: 0o644 });
    const [newest, oldest] = (await store.versions("acme", "p1", "_vance/skills/a/run.sh"))!;

    // Assess
    expect((await store.get("acme", "p1", "_vance/skills/a/run.sh"))?.mode).toBe(0o644);
    expect((await store.getVersion("acme", "p1", "_vance/skills/a/run.sh", oldest!.versionId))?.mode).toBe(0o755);
    expect((await store.getVersion("acme", "p1", "_vance/skills/a/run.sh", newest!.versionId))?.mode).toBe(0o644);
  });

  it("lists paths relative to the project, sorted, filtered by prefix", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    for (const path of [
      "_vance/skills/b/SKILL.md",
      "_vance/skills/a/SKILL.md",
      "_vance/recipes/x.yaml",
      "_vance/skills/a/references/r.md",
    ]) {
      await store.put("acme", "p1", path, path);
    }

    // Act
    const skills = await store.list("acme", "p1", "_vance/skills/");
    const everything = await store.list("acme", "p1", "");

    // Assess
    expect(skills.map((r) => r.path)).toEqual(["_vance/skills/a/SKILL.md", "_vance/skills/a/references/r.md", "_vance/skills/b/SKILL.md"]);
    expect(everything).toHaveLength(4);
    expect(skills[0]).toEqual({ path: "_vance/skills/a/SKILL.md", etag: md5("_vance/skills/a/SKILL.md"), size: 24 });
  });

  it("isolates tenants and projects", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    await store.put("acme", "p1", "doc.md", "acme p1");
    await store.put("other", "p1", "doc.md", "other p1");
    await store.put("acme", "p10", "doc.md", "acme p10");

    // Act
    const acmeP1 = await store.list("acme", "p1", "");
    const otherGet = await store.get("other", "p1", "doc.md");
    const missing = await store.get("acme", "p2", "doc.md");

    // Assess
    expect(acmeP1.map((r) => r.path)).toEqual(["doc.md"]);
    expect(otherGet && textOf(otherGet)).toBe("other p1");
    expect(missing).toBeUndefined();
  });

  it("deletes and tells whether there was something to delete", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    await store.put("acme", "_tenant", "a.md", "x");

    // Act
    const first = await store.delete("acme", "_tenant", "a.md");
    const second = await store.delete("acme", "_tenant", "a.md");

    // Assess
    expect(first).toBe(true);
    expect(second).toBe(false);
    expect(await store.get("acme", "_tenant", "a.md")).toBeUndefined();
  });

  it.each([
    ["path", "acme", "_tenant", "../x"],
    ["project", "acme", "../_tenant", "x"],
    ["tenant", "ac/me", "_tenant", "x"],
  ])("rejects an invalid %s on every operation", async (_what, tenant, project, path) => {
    // Prepare
    const store = new InMemoryDocumentStore();

    // Act + Assess
    await expect(store.put(tenant, project, path, "x")).rejects.toBeInstanceOf(InvalidRequest);
    await expect(store.get(tenant, project, path)).rejects.toBeInstanceOf(InvalidRequest);
    await expect(store.delete(tenant, project, path)).rejects.toBeInstanceOf(InvalidRequest);
  });

  it("rejects an invalid list prefix", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();

    // Act + Assess
    await expect(store.list("acme", "_tenant", "../")).rejects.toBeInstanceOf(InvalidRequest);
  });
});

describe("StoreDocumentLayer", () => {
  it("reads and lists one tenant project only", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    await store.put("acme", "_user_bob", "a.md", "bob");
    await store.put("acme", "_tenant", "a.md", "tenant");
    const layer = new StoreDocumentLayer(store, "acme", "_user_bob");

    // Act
    const doc = await layer.read("a.md");
    const refs = await layer.list("");

    // Assess
    expect(doc && textOf(doc)).toBe("bob");
    expect(refs.map((r) => r.path)).toEqual(["a.md"]);
  });

  it("refuses to bind to an invalid tenant or project", () => {
    // Prepare
    const store = new InMemoryDocumentStore();

    // Act + Assess
    expect(() => new StoreDocumentLayer(store, "acme", "_user_")).toThrow(InvalidRequest);
    expect(() => new StoreDocumentLayer(store, "", "_tenant")).toThrow(InvalidRequest);
  });
});

describe("strictUtf8", () => {
  it("decodes UTF-8, drops a BOM, and refuses invalid sequences and NUL bytes", () => {
    // Act + Assess
    expect(strictUtf8(new TextEncoder().encode("\ufeffÄrger"))).toBe("Ärger");
    expect(strictUtf8(new Uint8Array([0x61, 0xff, 0x62]))).toBeUndefined();
    expect(strictUtf8(new Uint8Array([0xc3]))).toBeUndefined();
    expect(strictUtf8(new Uint8Array([0x61, 0x00, 0x62]))).toBeUndefined();
  });
});

describe("BundledDocumentLayer", () => {
  const savedEnv = process.env[ENV.bundledDir];
  afterEach(() => {
    if (savedEnv === undefined) delete process.env[ENV.bundledDir];
    else process.env[ENV.bundledDir] = savedEnv;
  });

  it("reads files of its root by relative path and lists them sorted", async () => {
    // Prepare
    const layer = await bundledFixture({
      "_vance/skills/b/SKILL.md": "b",
      "_vance/skills/a/SKILL.md": "a",
      "_vance/skills/a/references/r.md": "r",
      "_vance/recipes/default.yaml": "engine: ford",
    });

    // Act
    const refs = await layer.list("_vance/skills/");
    const doc = await layer.read("_vance/skills/a/references/r.md");
    const missing = await layer.read("_vance/skills/c/SKILL.md");

    // Assess
    expect(refs.map((r) => r.path)).toEqual(["_vance/skills/a/SKILL.md", "_vance/skills/a/references/r.md", "_vance/skills/b/SKILL.md"]);
    expect(doc && textOf(doc)).toBe("r");
    expect(doc?.etag).toBe(md5("r"));
    expect(missing).toBeUndefined();
  });

  it("snapshots the folder once per instance: later changes need a restart", async () => {
    // Prepare
    const root = await writeBundledFixture({ "_vance/skills/a/SKILL.md": "before" });
    const layer = new BundledDocumentLayer(root);
    await layer.list("");
    await writeFile(join(root, "_vance/skills/a/SKILL.md"), "after");
    await writeFile(join(root, "_vance/skills/a/new.md"), "new");

    // Act
    const doc = await layer.read("_vance/skills/a/SKILL.md");
    const added = await layer.read("_vance/skills/a/new.md");

    // Assess
    expect(doc && textOf(doc)).toBe("before");
    expect(added).toBeUndefined();
  });

  it("rejects traversal instead of reading outside its root", async () => {
    // Prepare
    const layer = await bundledFixture({ "a.md": "a" });

    // Act + Assess
    await expect(layer.read("../../etc/passwd")).rejects.toBeInstanceOf(InvalidRequest);
    await expect(layer.list("../")).rejects.toBeInstanceOf(InvalidRequest);
  });

  it("takes its root from the constructor, else SKILLS_BUNDLED_DIR, else the package's shared/bundled", async () => {
    // Prepare
    const fromEnv = await writeBundledFixture({ "env.md": "env" });
    process.env[ENV.bundledDir] = fromEnv;

    // Act
    const explicit = resolveBundledRoot("/explicit");
    const viaEnv = new BundledDocumentLayer();
    const envDoc = await viaEnv.read("env.md");
    delete process.env[ENV.bundledDir];
    const packaged = new BundledDocumentLayer();
    const packagedSkill = await packaged.read("_vance/skills/code-review/SKILL.md");

    // Assess
    expect(explicit).toBe("/explicit");
    expect(envDoc && textOf(envDoc)).toBe("env");
    expect(packaged.root.replaceAll("\\", "/")).toMatch(/\/shared\/bundled\/?$/);
    expect(packagedSkill && textOf(packagedSkill)).toContain("title: Code Review");
  });

  it("is one instance per process", () => {
    // Act + Assess
    expect(bundledDocuments()).toBe(bundledDocuments());
  });
});
