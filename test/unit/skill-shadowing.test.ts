import { afterAll, describe, expect, it } from "vitest";
import type { CatalogueVersions, LevelVersion } from "../../shared/catalogue/catalogue-versions.js";
import { DocumentCatalogue } from "../../shared/catalogue/document-catalogue.js";
import { catalogueChangeNotifier } from "../../shared/catalogue/document-change-notifier.js";
import { InMemoryCatalogueVersions } from "../../shared/catalogue/in-memory-catalogue-versions.js";
import type { DocumentRef, StoredDocument } from "../../shared/documents/document-store.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";
import type { SkillScopeContext } from "../../shared/documents/cascade-scope.js";
import { bundledFixture, removeBundledFixtures } from "../support/bundled-fixture.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";

const TENANT = "acme";
const FULL: SkillScopeContext = { tenantId: TENANT, userId: "bob", projectId: "web" };
const DISABLED = "---\nenabled: false\n---\n";
const DEFECTIVE = "---\ntitle: Broken\nversion: 1.0.0\n---\nno description\n";

type Files = Record<string, string>;

/** Records every store call, so a test can show what shadowing costs. */
class CountingStore extends InMemoryDocumentStore {
  calls: string[] = [];
  override get(tenant: string, project: string, path: string): Promise<StoredDocument | undefined> {
    this.calls.push(`get ${project}:${path}`);
    return super.get(tenant, project, path);
  }
  override list(tenant: string, project: string, prefix: string): Promise<DocumentRef[]> {
    this.calls.push(`list ${project}:${prefix}`);
    return super.list(tenant, project, prefix);
  }
}

class CountingVersions implements CatalogueVersions {
  readonly inner = new InMemoryCatalogueVersions();
  reads = 0;
  bump(tenant: string, project: string): Promise<LevelVersion> {
    return this.inner.bump(tenant, project);
  }
  read(tenant: string, projects: readonly string[]): Promise<Map<string, LevelVersion>> {
    this.reads += 1;
    return this.inner.read(tenant, projects);
  }
}

async function setup(layers: { user?: Files; project?: Files; tenant?: Files; bundled?: Files }, withCatalogue = false) {
  const store = new CountingStore();
  const put = async (project: string, files: Files = {}) => {
    for (const [path, body] of Object.entries(files)) await store.put(TENANT, project, path, body);
  };
  await put("_user_bob", layers.user);
  await put("web", layers.project);
  await put("_tenant", layers.tenant);
  const bundled = await bundledFixture(layers.bundled ?? {});
  const versions = new CountingVersions();
  const catalogue = withCatalogue ? new DocumentCatalogue({ store, bundled, versions }) : undefined;
  const loader = new SkillLoader({ store, bundled, catalogue });
  const notify = catalogueChangeNotifier(versions);
  const edit = async (project: string, path: string, body: string): Promise<void> => {
    await store.put(TENANT, project, path, body);
    await notify({ tenant: TENANT, project, path });
  };
  store.calls = [];
  return { store, versions, loader, edit };
}

const titled = (title: string): string => skillMd({ title });

afterAll(removeBundledFixtures);

describe("shadowed skill documents", () => {
  it("names every outer document of a name with the level that wins, USER > PROJECT > _tenant > RESOURCE", async () => {
    // Prepare
    const { loader } = await setup({
      user: { [skillPath("alpha")]: titled("user") },
      project: { [skillPath("alpha")]: titled("project"), [skillPath("beta")]: titled("project") },
      tenant: { [skillPath("alpha")]: titled("tenant"), [skillPath("beta")]: titled("tenant"), [skillPath("gamma")]: titled("tenant") },
      bundled: {
        [skillPath("alpha")]: titled("bundled"),
        [skillPath("gamma")]: titled("bundled"),
        [skillPath("delta")]: titled("bundled"),
      },
    });

    // Act
    const { skills, shadowed } = await loader.listWithShadowed(FULL);

    // Assess
    expect(skills.map((s) => [s.name, s.source])).toEqual([
      ["alpha", "USER"],
      ["beta", "PROJECT"],
      ["delta", "RESOURCE"],
      ["gamma", "VANCE"],
    ]);
    expect(shadowed).toEqual([
      { name: "alpha", source: "PROJECT", path: skillPath("alpha"), shadowedBy: "USER", reason: "overridden" },
      { name: "alpha", source: "VANCE", path: skillPath("alpha"), shadowedBy: "USER", reason: "overridden" },
      { name: "alpha", source: "RESOURCE", path: skillPath("alpha"), shadowedBy: "USER", reason: "overridden" },
      { name: "beta", source: "VANCE", path: skillPath("beta"), shadowedBy: "PROJECT", reason: "overridden" },
      { name: "gamma", source: "RESOURCE", path: skillPath("gamma"), shadowedBy: "VANCE", reason: "overridden" },
    ]);
  });

  it("names the documents an inner `enabled: false` override hides, with that level and reason disabled", async () => {
    // Prepare
    const { loader } = await setup({
      project: { [skillPath("alpha")]: DISABLED },
      tenant: { [skillPath("alpha")]: titled("tenant") },
      bundled: { [skillPath("alpha")]: titled("bundled") },
    });

    // Act
    const { skills, shadowed } = await loader.listWithShadowed(FULL);
    const problems = await loader.problems(FULL);

    // Assess
    expect(skills).toEqual([]);
    expect(shadowed).toEqual([
      { name: "alpha", source: "VANCE", path: skillPath("alpha"), shadowedBy: "PROJECT", reason: "disabled" },
      { name: "alpha", source: "RESOURCE", path: skillPath("alpha"), shadowedBy: "PROJECT", reason: "disabled" },
    ]);
    expect(problems.map((p) => [p.source, p.severity, p.message])).toEqual([
      ["VANCE", "info", `hidden by the PROJECT level's enabled: false override of the same name (${skillPath("alpha")})`],
      ["RESOURCE", "info", `hidden by the PROJECT level's enabled: false override of the same name (${skillPath("alpha")})`],
    ]);
  });

  it("does not let a defective inner document shadow: the outer one is used, the inner one is an error, the rest are shadowed by the outer", async () => {
    // Prepare
    const { loader } = await setup({
      user: { [skillPath("alpha")]: DEFECTIVE },
      project: { [skillPath("alpha")]: titled("project") },
      tenant: { [skillPath("alpha")]: titled("tenant") },
    });

    // Act
    const { skills, shadowed } = await loader.listWithShadowed(FULL);
    const problems = await loader.problems(FULL);

    // Assess
    expect(skills.map((s) => [s.name, s.source, s.title])).toEqual([["alpha", "PROJECT", "project"]]);
    expect(shadowed).toEqual([{ name: "alpha", source: "VANCE", path: skillPath("alpha"), shadowedBy: "PROJECT", reason: "overridden" }]);
    expect(problems.map((p) => [p.source, p.severity])).toEqual([
      ["USER", "error"],
      ["VANCE", "info"],
    ]);
    expect(problems[1]?.message).toBe(`shadowed by the PROJECT level's skill of the same name (${skillPath("alpha")})`);
  });

  it("lists a defective outer document as shadowed without reading it", async () => {
    // Prepare
    const { store, loader } = await setup({
      project: { [skillPath("alpha")]: titled("project") },
      tenant: { [skillPath("alpha")]: DEFECTIVE },
    });

    // Act
    const { shadowed } = await loader.listWithShadowed(FULL);

    // Assess
    expect(shadowed).toEqual([{ name: "alpha", source: "VANCE", path: skillPath("alpha"), shadowedBy: "PROJECT", reason: "overridden" }]);
    expect(store.calls.filter((c) => c.startsWith("get _tenant"))).toEqual([]);
  });

  it("lists nothing when every name lives in one level", async () => {
    // Prepare
    const { loader } = await setup({ project: { [skillPath("alpha")]: titled("p") }, tenant: { [skillPath("beta")]: titled("t") } });

    // Act
    const { shadowed } = await loader.listWithShadowed(FULL);

    // Assess
    expect(shadowed).toEqual([]);
    expect((await loader.problems(FULL)).filter((p) => p.severity === "info")).toEqual([]);
  });

  it("costs no store call on a warm catalogue and hands out the same frozen list until a level changes", async () => {
    // Prepare
    const { store, versions, loader, edit } = await setup(
      { project: { [skillPath("alpha")]: titled("project") }, tenant: { [skillPath("alpha")]: titled("tenant") } },
      true,
    );
    const first = await loader.listWithShadowed(FULL);
    store.calls = [];
    versions.reads = 0;

    // Act
    const warm = await loader.listWithShadowed(FULL);
    const warmCalls = [...store.calls];
    await edit("_tenant", skillPath("beta"), titled("beta"));
    await edit("web", skillPath("beta"), titled("beta project"));
    const changed = await loader.listWithShadowed(FULL);

    // Assess
    expect(warmCalls).toEqual([]);
    expect(versions.reads).toBeGreaterThanOrEqual(1);
    expect(warm.shadowed).toBe(first.shadowed);
    expect(Object.isFrozen(warm.shadowed)).toBe(true);
    expect(changed.shadowed.map((s) => [s.name, s.source, s.shadowedBy])).toEqual([
      ["alpha", "VANCE", "PROJECT"],
      ["beta", "VANCE", "PROJECT"],
    ]);
  });
});
