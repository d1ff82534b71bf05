import { afterAll, describe, expect, it } from "vitest";
import { createSkillsApp } from "../../shared/app/skills-app.js";
import { CatalogueUnavailable } from "../../shared/catalogue/catalogue-errors.js";
import type { CatalogueVersions, LevelVersion } from "../../shared/catalogue/catalogue-versions.js";
import { DocumentCatalogue } from "../../shared/catalogue/document-catalogue.js";
import { catalogueChangeNotifier } from "../../shared/catalogue/document-change-notifier.js";
import { InMemoryCatalogueVersions } from "../../shared/catalogue/in-memory-catalogue-versions.js";
import type { ProcessVersionsReader } from "../../shared/catalogue/process-versions-reader.js";
import { SeparateProcessVersionsReader } from "../../shared/catalogue/separate-process-versions-reader.js";
import { PrimedVersions } from "../../shared/catalogue/primed-versions.js";
import type { DocumentRef, StoredDocument } from "../../shared/documents/document-store.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { InMemoryLane } from "../../shared/lanes/in-memory-lane.js";
import { InMemoryProcessStore } from "../../shared/processes/in-memory-process-store.js";
import { InMemoryRequestStore } from "../../shared/processes/in-memory-request-store.js";
import { InvalidRequest } from "../../shared/errors.js";
import { ProcessNotFound } from "../../shared/processes/process-errors.js";
import type { Process } from "../../shared/processes/process.js";
import { errorResponse } from "../../shared/http/error-response.js";
import { RecipeLoader } from "../../shared/recipes/recipe-loader.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";
import type { SkillScopeContext } from "../../shared/documents/cascade-scope.js";
import { SkillTriggerMatcher } from "../../shared/skills/triggers/skill-trigger-matcher.js";
import { bundledFixture, removeBundledFixtures } from "../support/bundled-fixture.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";
import { EmptyLayer, FakeRenderer } from "../support/steering-harness.js";

const SCOPE: SkillScopeContext = { tenantId: "acme", userId: "bob", projectId: "web" };

/** The scope as a turn's lookups make it: carrying the versions read along with the process. */
const primedScope = (scope: SkillScopeContext, versions: ReadonlyMap<string, LevelVersion>): SkillScopeContext => ({
  ...scope,
  catalogueVersions: new PrimedVersions(scope.tenantId, versions),
});
const recipePath = (name: string): string => `_vance/recipes/${name}.yaml`;
const titled = (title: string, extra?: string): string => skillMd({ title, extra });
const INLINE_REF = ["referenceDocs:", "  - file: references/checklist.md", "    title: Checklist", "    loadMode: INLINE"].join("\n");

/** Records every store call as `<tenant>/<project>:<path or prefix>`; can be switched to fail. */
class CountingStore extends InMemoryDocumentStore {
  reads: string[] = [];
  lists: string[] = [];
  failing = false;
  override async get(tenant: string, project: string, path: string): Promise<StoredDocument | undefined> {
    this.reads.push(`${tenant}/${project}:${path}`);
    if (this.failing) throw new Error("ServiceUnavailable");
    return super.get(tenant, project, path);
  }
  override async list(tenant: string, project: string, prefix: string): Promise<DocumentRef[]> {
    this.lists.push(`${tenant}/${project}:${prefix}`);
    if (this.failing) throw new Error("ServiceUnavailable");
    return super.list(tenant, project, prefix);
  }
  reset(): void {
    this.reads = [];
    this.lists = [];
  }
}

class CountingVersions implements CatalogueVersions {
  readonly inner = new InMemoryCatalogueVersions();
  reads: string[][] = [];
  failing = false;
  bump(tenant: string, project: string): Promise<LevelVersion> {
    return this.inner.bump(tenant, project);
  }
  read(tenant: string, projects: readonly string[]): Promise<Map<string, LevelVersion>> {
    this.reads.push([tenant, ...projects]);
    if (this.failing) return Promise.reject(new Error("ProvisionedThroughputExceeded"));
    return this.inner.read(tenant, projects);
  }
}

async function setup(files: Record<string, Record<string, string>> = {}, tenant = "acme", maxLevels?: number) {
  const store = new CountingStore();
  for (const [project, docs] of Object.entries(files)) {
    for (const [path, body] of Object.entries(docs)) await store.put(tenant, project, path, body);
  }
  const versions = new CountingVersions();
  const warnings: string[] = [];
  const bundled = await bundledFixture({
    [skillPath("bundled-one")]: titled("bundled"),
    [recipePath("default")]: "engine: ford\ndescription: bundled\n",
  });
  const catalogue = new DocumentCatalogue({ store, bundled, versions, maxLevels, logger: { warn: (message) => warnings.push(message) } });
  const skills = new SkillLoader({ store, bundled, catalogue });
  const recipes = new RecipeLoader({ store, bundled, catalogue });
  const notify = catalogueChangeNotifier(versions);
  /** A write through the API: the document, then the level's version. */
  const edit = async (project: string, path: string, body: string, at = tenant): Promise<void> => {
    await store.put(at, project, path, body);
    await notify({ tenant: at, project, path });
  };
  const remove = async (project: string, path: string, at = tenant): Promise<void> => {
    await store.delete(at, project, path);
    await notify({ tenant: at, project, path });
  };
  return { store, versions, catalogue, skills, recipes, edit, remove, warnings };
}

afterAll(removeBundledFixtures);

describe("warm catalogue: steady state", () => {
  it("serves unchanged levels from memory: no store call, one versions read per lookup", async () => {
    // Prepare
    const { store, versions, skills, recipes } = await setup({
      web: {
        [skillPath("alpha")]: titled("alpha", INLINE_REF),
        "_vance/skills/alpha/references/checklist.md": "check",
        [recipePath("default")]: "engine: ford\ndescription: project\n",
      },
      _tenant: { [skillPath("beta")]: titled("beta") },
    });
    await skills.listAvailable(SCOPE);
    await skills.load(SCOPE, "alpha");
    await recipes.load(SCOPE, "default");
    store.reset();
    versions.reads = [];

    // Act
    const listed = await skills.listAvailable(SCOPE);
    const alpha = await skills.load(SCOPE, "alpha");
    const recipe = await recipes.load(SCOPE, "default");

    // Assess
    expect(listed.map((s) => [s.name, s.source])).toEqual([
      ["alpha", "PROJECT"],
      ["beta", "VANCE"],
      ["bundled-one", "RESOURCE"],
    ]);
    expect(alpha?.referenceDocs[0]?.content).toBe("check");
    expect(recipe?.description).toBe("project");
    expect(store.reads).toEqual([]);
    expect(store.lists).toEqual([]);
    expect(versions.reads).toEqual([
      ["acme", "_user_bob", "web", "_tenant"],
      ["acme", "_user_bob", "web", "_tenant"],
      ["acme", "_user_bob", "web", "_tenant"],
    ]);
  });

  it("coalesces the lookups a turn starts together into one versions read", async () => {
    // Prepare
    const { versions, skills, recipes } = await setup({ web: { [skillPath("alpha")]: titled("alpha") } });
    await skills.listAvailable(SCOPE);
    versions.reads = [];

    // Act
    const [recipe, listed, alpha, beta] = await Promise.all([
      recipes.load(SCOPE, "default"),
      skills.listAvailable(SCOPE),
      skills.load(SCOPE, "alpha"),
      skills.load(SCOPE, "bundled-one"),
    ]);

    // Assess
    expect([recipe?.name, listed.length, alpha?.name, beta?.name]).toEqual(["default", 2, "alpha", "bundled-one"]);
    expect(versions.reads).toHaveLength(1);
  });

  it("lists a level without a version item once (version 0) and then serves it from memory", async () => {
    // Prepare
    const { store, skills } = await setup({ _tenant: { [skillPath("alpha")]: titled("alpha") } });

    // Act
    await skills.listAvailable(SCOPE);
    const firstLists = [...store.lists].sort();
    store.reset();
    await skills.listAvailable(SCOPE);

    // Assess
    expect(firstLists).toEqual(["acme/_tenant:_vance/", "acme/_user_bob:_vance/", "acme/web:_vance/"]);
    expect(store.lists).toEqual([]);
  });

  it("hands out the same arrays while nothing changed, so the trigger index is built once", async () => {
    // Prepare
    const trigger = ["triggers:", "  - type: KEYWORDS", "    keywords: [deploy, staging]"].join("\n");
    const { skills, edit } = await setup({ web: { [skillPath("alpha")]: titled("alpha", trigger) } });
    const matcher = new SkillTriggerMatcher();

    // Act
    const first = await skills.listAvailable(SCOPE);
    const second = await skills.listAvailable(SCOPE);
    const problems = await skills.problems(SCOPE);
    const problemsAgain = await skills.problems(SCOPE);
    await edit("web", "notes/readme.md", "outside _vance: no bump");
    const third = await skills.listAvailable(SCOPE);
    await edit("web", skillPath("gamma"), titled("gamma"));
    const fourth = await skills.listAvailable(SCOPE);

    // Assess
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(problemsAgain).toBe(problems);
    expect(matcher.indexFor(second)).toBe(matcher.indexFor(first));
    expect(fourth).not.toBe(first);
    expect(fourth.map((s) => s.name)).toContain("gamma");
    expect(Object.isFrozen(first)).toBe(true);
  });

  it("keeps the snapshot when a bump changed nothing under _vance/", async () => {
    // Prepare
    const { store, versions, skills } = await setup({ web: { [skillPath("alpha")]: titled("alpha") } });
    const first = await skills.listAvailable(SCOPE);
    store.reset();

    // Act
    await versions.bump("acme", "web");
    const second = await skills.listAvailable(SCOPE);

    // Assess
    expect(store.lists).toEqual(["acme/web:_vance/"]);
    expect(store.reads).toEqual([]);
    expect(second).toBe(first);
  });
});

describe("warm catalogue: edits", () => {
  it("shows an edit on the next lookup after the bump, re-reading only the changed document", async () => {
    // Prepare
    const { store, skills, edit } = await setup({
      web: { [skillPath("alpha")]: titled("old alpha"), [skillPath("beta")]: titled("beta") },
      _tenant: { [skillPath("gamma")]: titled("gamma") },
    });
    await skills.listAvailable(SCOPE);
    await edit("web", skillPath("alpha"), titled("new alpha"));
    store.reset();

    // Act
    const listed = await skills.listAvailable(SCOPE);
    const loaded = await skills.load(SCOPE, "alpha");

    // Assess
    expect(listed.find((s) => s.name === "alpha")?.title).toBe("new alpha");
    expect(loaded?.title).toBe("new alpha");
    expect(store.lists).toEqual(["acme/web:_vance/"]);
    expect(store.reads).toEqual(["acme/web:_vance/skills/alpha/SKILL.md"]);
  });

  it("re-reads an INLINE reference whose ETag changed and nothing else", async () => {
    // Prepare
    const { store, skills, edit } = await setup({
      web: { [skillPath("alpha")]: titled("alpha", INLINE_REF), "_vance/skills/alpha/references/checklist.md": "v1" },
    });
    await skills.load(SCOPE, "alpha");
    await edit("web", "_vance/skills/alpha/references/checklist.md", "v2");
    store.reset();

    // Act
    const alpha = await skills.load(SCOPE, "alpha");

    // Assess
    expect(alpha?.referenceDocs[0]?.content).toBe("v2");
    expect(store.reads).toEqual(["acme/web:_vance/skills/alpha/references/checklist.md"]);
  });

  it("falls through to the outer level on the next lookup after a delete", async () => {
    // Prepare
    const { skills, remove } = await setup({
      _user_bob: { [skillPath("alpha")]: titled("user") },
      web: { [skillPath("alpha")]: titled("project") },
      _tenant: { [skillPath("alpha")]: titled("tenant") },
    });
    const seen: (string | undefined)[] = [];

    // Act
    for (const project of ["_user_bob", "web", "_tenant"]) {
      seen.push((await skills.load(SCOPE, "alpha"))?.source);
      await remove(project, skillPath("alpha"));
    }
    seen.push((await skills.load(SCOPE, "alpha"))?.source);

    // Assess
    expect(seen).toEqual(["USER", "PROJECT", "VANCE", undefined]);
  });

  it("shows a recipe edit on the next lookup", async () => {
    // Prepare
    const { recipes, edit } = await setup();
    const before = await recipes.load(SCOPE, "default");

    // Act
    await edit("_tenant", recipePath("default"), "engine: ford\ndescription: tenant default\n");
    const after = await recipes.load(SCOPE, "default");

    // Assess
    expect([before?.source, after?.source, after?.description]).toEqual(["RESOURCE", "VANCE", "tenant default"]);
  });

  it("does not see a write nobody bumped: the version, not a timer, decides", async () => {
    // Prepare
    const { store, skills } = await setup({ web: { [skillPath("alpha")]: titled("old") } });
    await skills.load(SCOPE, "alpha");

    // Act
    await store.put("acme", "web", skillPath("alpha"), titled("sneaky"));
    const loaded = await skills.load(SCOPE, "alpha");

    // Assess
    expect(loaded?.title).toBe("old");
  });
});

describe("warm catalogue: tenants", () => {
  it("never serves one tenant's entries to another, and one tenant's bump costs the other nothing", async () => {
    // Prepare
    const { store, skills, edit } = await setup({ web: { [skillPath("alpha")]: titled("acme alpha") } });
    await store.put("umbrella", "web", skillPath("alpha"), titled("umbrella alpha"));
    const other: SkillScopeContext = { tenantId: "umbrella", userId: "bob", projectId: "web" };
    await skills.listAvailable(SCOPE);

    // Act
    const theirs = await skills.load(other, "alpha");
    await edit("web", skillPath("alpha"), titled("umbrella alpha 2"), "umbrella");
    store.reset();
    const ours = await skills.load(SCOPE, "alpha");
    const theirsAfter = await skills.load(other, "alpha");

    // Assess
    expect(theirs?.title).toBe("umbrella alpha");
    expect(ours?.title).toBe("acme alpha");
    expect(theirsAfter?.title).toBe("umbrella alpha 2");
    expect(store.lists).toEqual(["umbrella/web:_vance/"]);
    expect(store.reads).toEqual(["umbrella/web:_vance/skills/alpha/SKILL.md"]);
  });
});

describe("warm catalogue: bound", () => {
  it("forgets the least recently used level beyond maxLevels and lists it again when asked", async () => {
    // Prepare: each scope has 4 levels (user, project, tenant, bundled); 3 are shared.
    const { store, skills } = await setup({}, "acme", 5);
    const inProject = (projectId: string): SkillScopeContext => ({ ...SCOPE, projectId });
    await skills.listAvailable(inProject("web"));
    await skills.listAvailable(inProject("api")); // touches the shared levels again: web is now the oldest

    // Act
    await skills.listAvailable(inProject("docs")); // a sixth level: web goes
    store.reset();
    await skills.listAvailable(inProject("web"));
    const relisted = store.lists;
    store.reset();
    await skills.listAvailable(inProject("web"));

    // Assess
    expect(relisted).toEqual(["acme/web:_vance/"]);
    expect(store.lists).toEqual([]);
  });
});

describe("warm catalogue: faults", () => {
  it("serves the warm snapshot with a warning when the store fails during a turn", async () => {
    // Prepare
    const { store, skills, edit, warnings } = await setup({
      web: { [skillPath("alpha")]: titled("alpha") },
      _tenant: { [skillPath("beta")]: titled("beta") },
    });
    await skills.listAvailable(SCOPE);
    await edit("web", skillPath("alpha"), titled("alpha 2"));
    store.failing = true;

    // Act
    const listed = await skills.listAvailable(SCOPE);
    const loaded = await skills.load(SCOPE, "alpha");

    // Assess
    expect(listed.map((s) => [s.name, s.title])).toEqual([
      ["alpha", "alpha"],
      ["beta", "beta"],
      ["bundled-one", "bundled"],
    ]);
    expect(loaded?.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/warm catalogue.*PROJECT level 'web' could not be refreshed.*ServiceUnavailable/),
    ]);
    expect(listed.find((s) => s.name === "beta")?.warnings).toEqual([]);
    expect(warnings.some((w) => /stale level/.test(w))).toBe(true);
  });

  it("recovers on the next lookup once the store answers again", async () => {
    // Prepare
    const { store, skills, edit } = await setup({ web: { [skillPath("alpha")]: titled("alpha") } });
    await skills.load(SCOPE, "alpha");
    await edit("web", skillPath("alpha"), titled("alpha 2"));
    store.failing = true;
    await skills.load(SCOPE, "alpha");
    store.failing = false;

    // Act
    const loaded = await skills.load(SCOPE, "alpha");

    // Assess
    expect(loaded?.title).toBe("alpha 2");
    expect(loaded?.warnings).toEqual([]);
  });

  it("fails with a retryable CatalogueUnavailable when there is no warm snapshot", async () => {
    // Prepare
    const { store, skills } = await setup({ web: { [skillPath("alpha")]: titled("alpha") } });
    store.failing = true;

    // Act
    const error = await skills.listAvailable(SCOPE).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(CatalogueUnavailable);
    expect(error).toMatchObject({ retryable: true, tenant: "acme" });
    expect(errorResponse(error)).toMatchObject({ statusCode: 503, body: { error: { code: "SERVICE_UNAVAILABLE" } } });
  });

  it("lists every level afresh while the versions cannot be read", async () => {
    // Prepare
    const { store, versions, skills, warnings } = await setup({ web: { [skillPath("alpha")]: titled("alpha") } });
    await skills.load(SCOPE, "alpha");
    await store.put("acme", "web", skillPath("alpha"), titled("unbumped"));
    versions.failing = true;
    store.reset();

    // Act
    const loaded = await skills.load(SCOPE, "alpha");

    // Assess
    expect(loaded?.title).toBe("unbumped");
    expect(store.lists.sort()).toEqual(["acme/_tenant:_vance/", "acme/_user_bob:_vance/", "acme/web:_vance/"]);
    expect(warnings.some((w) => /versions unavailable/.test(w))).toBe(true);
  });

  it("rejects a malformed scope before reading any version, and an impossible name reads nothing", async () => {
    // Prepare
    const { versions, skills } = await setup();

    // Act
    const malformed = await skills.listAvailable({ tenantId: "../acme" }).catch((e: unknown) => e);
    const impossible = await skills.load(SCOPE, "../alpha");

    // Assess
    expect(malformed).toBeInstanceOf(InvalidRequest);
    expect(impossible).toBeUndefined();
    expect(versions.reads).toEqual([]);
  });
});

describe("createSkillsApp with catalogueVersions", () => {
  it("composes steady turns without store calls and shows an edit in the very next turn", async () => {
    // Prepare
    const store = new CountingStore();
    const versions = new CountingVersions();
    const notify = catalogueChangeNotifier(versions);
    const app = createSkillsApp({
      documents: store,
      bundled: new EmptyLayer(),
      processes: new InMemoryProcessStore(),
      requests: new InMemoryRequestStore(),
      lane: new InMemoryLane(),
      renderer: new FakeRenderer(),
      catalogueVersions: versions,
      logger: { warn: () => undefined },
    });
    await store.put("acme", "_tenant", recipePath("open"), "engine: ford\ndefaultActiveSkills: [alpha]\n");
    await store.put("acme", "web", skillPath("alpha"), skillMd({ title: "Alpha", body: "Alpha body one." }));
    const process = await app.spawn("acme", { login: "bob" }, { sessionId: "s1", recipe: "open", projectId: "web" });
    await app.previewTurn("acme", process.processId, { login: "bob" }, "hello");
    store.reset();
    versions.reads = [];

    // Act
    const steady = await app.previewTurn("acme", process.processId, { login: "bob" }, "hello");
    const steadyCalls = [...store.reads, ...store.lists];
    const steadyVersionReads = versions.reads.length;
    await store.put("acme", "web", skillPath("alpha"), skillMd({ title: "Alpha", body: "Alpha body two." }));
    await notify({ tenant: "acme", project: "web", path: skillPath("alpha") });
    const edited = await app.previewTurn("acme", process.processId, { login: "bob" }, "hello");

    // Assess
    expect(steady.skillSection).toContain("Alpha body one.");
    expect(steadyCalls).toEqual([]);
    expect(steadyVersionReads).toBe(1);
    expect(edited.skillSection).toContain("Alpha body two.");
  });
});

describe("warm catalogue: versions read by the caller (carried by the scope)", () => {
  it("validates against the versions handed in and reads none itself", async () => {
    // Prepare
    const { store, versions, skills, recipes } = await setup({ web: { [skillPath("alpha")]: titled("alpha") } });
    await skills.listAvailable(SCOPE);
    const known = await versions.inner.read("acme", ["_user_bob", "web", "_tenant"]);
    store.reset();
    versions.reads = [];

    // Act
    const primed = primedScope(SCOPE, known);
    const [listed, recipe] = await Promise.all([skills.listAvailable(primed), recipes.load(primed, "default")]);

    // Assess
    expect(listed.map((s) => s.name)).toEqual(["alpha", "bundled-one"]);
    expect(recipe?.name).toBe("default");
    expect(versions.reads).toEqual([]);
    expect([...store.lists, ...store.reads]).toEqual([]);
  });

  it("shows an edit whose bump the handed-in versions include", async () => {
    // Prepare
    const { store, versions, skills, edit } = await setup({ web: { [skillPath("alpha")]: titled("alpha") } });
    await skills.load(SCOPE, "alpha");
    await edit("web", skillPath("alpha"), titled("alpha 2"));
    const known = await versions.inner.read("acme", ["_user_bob", "web", "_tenant"]);
    store.reset();
    versions.reads = [];

    // Act
    const loaded = await skills.load(primedScope(SCOPE, known), "alpha");

    // Assess
    expect(loaded?.title).toBe("alpha 2");
    expect(store.lists).toEqual(["acme/web:_vance/"]);
    expect(versions.reads).toEqual([]);
  });

  it("reads only the levels missing from the handed-in versions", async () => {
    // Prepare
    const { versions, skills } = await setup({ web: { [skillPath("alpha")]: titled("alpha") } });
    await skills.listAvailable(SCOPE);
    const known = await versions.inner.read("acme", ["_tenant"]);
    versions.reads = [];

    // Act
    await skills.listAvailable(primedScope(SCOPE, known));

    // Assess
    expect(versions.reads).toEqual([["acme", "_user_bob", "web"]]);
  });

  it("applies only to the scopes that carry them and only to their tenant", async () => {
    // Prepare
    const other: SkillScopeContext = { tenantId: "umbrella", projectId: "web" };
    const { versions, skills } = await setup({ web: { [skillPath("alpha")]: titled("alpha") } });
    await skills.listAvailable(SCOPE);
    const known = await versions.inner.read("acme", ["_user_bob", "web", "_tenant"]);
    versions.reads = [];

    // Act
    await skills.listAvailable({ ...other, catalogueVersions: new PrimedVersions("acme", known) });
    const inside = [...versions.reads];
    versions.reads = [];
    await skills.listAvailable(SCOPE);

    // Assess
    expect(inside).toEqual([["umbrella", "web", "_tenant"]]);
    expect(versions.reads).toEqual([["acme", "_user_bob", "web", "_tenant"]]);
  });
});

/** Records what each combined read asked for, around the in-memory reader. */
class RecordingReader implements ProcessVersionsReader {
  readonly asked: string[][] = [];
  constructor(private readonly inner: ProcessVersionsReader) {}
  read(tenant: string, processId: string, projects: readonly string[]) {
    this.asked.push([...projects]);
    return this.inner.read(tenant, processId, projects);
  }
}

async function laneTurnSetup() {
  const store = new CountingStore();
  const versions = new CountingVersions();
  const processes = new InMemoryProcessStore();
  const reader = new RecordingReader(new SeparateProcessVersionsReader(processes, versions));
  const warnings: string[] = [];
  const app = createSkillsApp({
    documents: store,
    bundled: new EmptyLayer(),
    processes,
    requests: new InMemoryRequestStore(),
    lane: new InMemoryLane(),
    renderer: new FakeRenderer(),
    catalogueVersions: versions,
    processVersions: reader,
    logger: { warn: (message) => warnings.push(message) },
  });
  await store.put("acme", "_tenant", recipePath("open"), "engine: ford\ndefaultActiveSkills: [alpha]\n");
  await store.put("acme", "web", skillPath("alpha"), skillMd({ title: "Alpha", body: "Alpha body one." }));
  const process = await app.spawn("acme", BOB, { sessionId: "s1", recipe: "open", projectId: "web" });
  const notify = catalogueChangeNotifier(versions);
  let turns = 0;
  const compose = (requestId = `r-${++turns}`) =>
    app.turns.compose(
      { tenant: "acme", processId: process.processId, requestId, user: BOB },
      { turnId: `t-${requestId}`, message: "hello" },
    );
  /** Reads and writes of the process item and the versions reads, since the last call. */
  const traffic = () => {
    const seen = {
      processReads: processes.processReads,
      writes: processes.writeAttempts,
      versionReads: versions.reads.length,
      combined: reader.asked.length,
    };
    processes.processReads = 0;
    processes.writeAttempts = 0;
    versions.reads = [];
    reader.asked.length = 0;
    return seen;
  };
  return { app, store, versions, processes, reader, process, notify, compose, traffic, warnings };
}

const BOB = { login: "bob" };

describe("lane turns on the warm catalogue", () => {
  it("costs one combined read and one write per steady turn: the versions come with the process", async () => {
    // Prepare
    const { reader, store, compose, traffic } = await laneTurnSetup();
    traffic();
    await compose();
    const first = { asked: [...reader.asked], ...traffic() };
    store.reset();

    // Act
    const { result } = await compose();
    const steady = { asked: [...reader.asked], ...traffic() };

    // Assess
    expect(result.skillSection).toContain("Alpha body one.");
    expect(first).toEqual({ asked: [[]], combined: 1, processReads: 1, writes: 1, versionReads: 1 });
    expect(steady).toEqual({ asked: [["_user_bob", "web", "_tenant"]], combined: 1, processReads: 1, writes: 1, versionReads: 1 });
    expect([...store.lists, ...store.reads]).toEqual([]);
  });

  it("shows an edit in the very next turn, validated by the versions read with the process", async () => {
    // Prepare
    const { store, compose, notify, traffic } = await laneTurnSetup();
    await compose();
    await store.put("acme", "web", skillPath("alpha"), skillMd({ title: "Alpha", body: "Alpha body two." }));
    await notify({ tenant: "acme", project: "web", path: skillPath("alpha") });
    traffic();

    // Act
    const { result } = await compose();

    // Assess
    expect(result.skillSection).toContain("Alpha body two.");
    expect(traffic()).toMatchObject({ combined: 1, versionReads: 1, writes: 1 });
  });

  it("re-applies on the stored state the conflict returns when the process changed between its read and the turn's write", async () => {
    // Prepare
    const { processes, process, compose, traffic } = await laneTurnSetup();
    await compose();
    processes.injectConcurrentUpdate("acme", process.processId, (p: Process) => ({
      ...p,
      pending: [...p.pending, { id: "theirs", sender: "_skill", text: "from elsewhere", kind: "action", at: "2030-01-01T00:00:00.000Z" }],
    }));
    traffic();

    // Act
    const { result, process: written } = await compose("r-race");
    const seen = traffic();
    const stored = await processes.get("acme", process.processId);

    // Assess
    // The lost write's conflict carries the process that won: no second read.
    expect(seen).toMatchObject({ combined: 1, processReads: 1, writes: 2 });
    expect(result.turnId).toBe("t-r-race");
    expect(stored).toEqual(written);
    expect(stored?.turn?.turnId).toBe("t-r-race");
    expect(stored?.pending.map((m) => m.id)).toEqual(["theirs"]);
    expect(stored?.appliedRequests.filter((id) => id === "r-race")).toEqual(["r-race"]);
  });

  it("answers a redelivered turn from the stored state without a second write", async () => {
    // Prepare
    const { processes, process, compose, traffic } = await laneTurnSetup();
    await compose("r-once");
    const before = await processes.get("acme", process.processId);
    traffic();

    // Act
    const { result } = await compose("r-once");

    // Assess
    expect(result.warnings).toContain("This turn was composed by an earlier delivery; its consumed messages are not repeated");
    expect(traffic()).toMatchObject({ combined: 1, writes: 0 });
    expect(await processes.get("acme", process.processId)).toEqual(before);
  });

  it("still composes, listing every level, while the versions cannot be read", async () => {
    // Prepare
    const { store, versions, compose, warnings } = await laneTurnSetup();
    await compose();
    versions.failing = true;
    store.reset();

    // Act
    const { result } = await compose();

    // Assess
    expect(result.skillSection).toContain("Alpha body one.");
    expect([...new Set(store.lists)].sort()).toEqual(["acme/_tenant:_vance/", "acme/_user_bob:_vance/", "acme/web:_vance/"]);
    expect(warnings.some((w) => /versions unavailable/.test(w))).toBe(true);
  });

  it("reports an unknown process as ProcessNotFound", async () => {
    // Prepare
    const { app } = await laneTurnSetup();

    // Act
    const error = await app.turns
      .compose({ tenant: "acme", processId: "nope", requestId: "r-x", user: BOB }, { turnId: "t-x" })
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(ProcessNotFound);
  });
});
