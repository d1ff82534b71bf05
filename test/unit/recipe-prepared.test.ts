import { afterAll, describe, expect, it } from "vitest";
import { DocumentCatalogue } from "../../shared/catalogue/document-catalogue.js";
import { InMemoryCatalogueVersions } from "../../shared/catalogue/in-memory-catalogue-versions.js";
import { InMemoryLevelSnapshotStore } from "../../shared/catalogue/in-memory-level-snapshot-store.js";
import { decodeLevelSnapshot } from "../../shared/catalogue/level-snapshot-codec.js";
import type { SkillScopeContext } from "../../shared/documents/cascade-scope.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { catalogueDocumentPreparer } from "../../shared/recipes/catalogue-document-preparer.js";
import { RecipeLoader } from "../../shared/recipes/recipe-loader.js";
import { bundledFixture, removeBundledFixtures } from "../support/bundled-fixture.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";

const TENANT = "acme";
const SCOPE: SkillScopeContext = { tenantId: TENANT, projectId: "web" };
const recipePath = (name: string) => `_vance/recipes/${name}.yaml`;
const quiet = { warn: () => undefined };

/** A store that counts the reads of each path (a cold instance must read no recipe it has a prepared outcome of). */
class CountingStore extends InMemoryDocumentStore {
  readonly reads: string[] = [];
  override async get(...args: Parameters<InMemoryDocumentStore["get"]>): ReturnType<InMemoryDocumentStore["get"]> {
    this.reads.push(args[2]);
    return super.get(...args);
  }
}

async function setup() {
  const store = new CountingStore();
  await store.put(TENANT, "web", recipePath("analyze"), "engine: ford\ndescription: project analyze\ndefaultActiveSkills: [alpha]\n");
  await store.put(TENANT, "web", recipePath("broken"), "engine: [not, a, name\n");
  await store.put(TENANT, "_tenant", recipePath("broken"), "engine: ford\ndescription: tenant broken-free\n");
  await store.put(TENANT, "_tenant", skillPath("alpha"), skillMd());
  const bundled = await bundledFixture({ [recipePath("default")]: "engine: ford\ndescription: bundled default\n" });
  const versions = new InMemoryCatalogueVersions();
  await versions.bump(TENANT, "web");
  await versions.bump(TENANT, "_tenant");
  const snapshots = new InMemoryLevelSnapshotStore();
  const catalogue = () =>
    new DocumentCatalogue({ store, bundled, versions, snapshots, preparer: catalogueDocumentPreparer, logger: quiet });
  return { store, bundled, versions, snapshots, catalogue };
}

afterAll(removeBundledFixtures);

describe("recipes in level snapshots (issue 27: a cold turn parses no recipe YAML)", () => {
  it("keeps each recipe's whole outcome in the snapshot and answers a lookup by name from it, without a read", async () => {
    // Prepare
    const { store, bundled, snapshots, catalogue } = await setup();
    const plain = new RecipeLoader({ store, bundled });
    await new RecipeLoader({ store, bundled, catalogue: catalogue() }).listAvailable(SCOPE); // writes the snapshots
    const cold = new RecipeLoader({ store, bundled, catalogue: catalogue() });
    store.reads.length = 0;

    // Act
    const fromSnapshot = await Promise.all(["analyze", "broken", "default"].map((name) => cold.load(SCOPE, name)));
    const readsOfCold = [...store.reads];
    const parsed = await Promise.all(["analyze", "broken", "default"].map((name) => plain.load(SCOPE, name)));

    // Assess
    expect(readsOfCold.filter((path) => path.startsWith("_vance/recipes/"))).toEqual([]);
    expect(fromSnapshot).toEqual(parsed);
    expect(fromSnapshot.map((recipe) => [recipe?.description, recipe?.source])).toEqual([
      ["project analyze", "PROJECT"],
      ["tenant broken-free", "VANCE"],
      ["bundled default", "RESOURCE"],
    ]);
    const stored = [...snapshots.objects.values()].map((bytes) => decodeLevelSnapshot(bytes));
    expect(stored.some((content) => content.prepared.get(recipePath("broken"))?.outcome.ok === false)).toBe(true);
    expect(await cold.problems(SCOPE)).toEqual(await plain.problems(SCOPE));
  });

  it("reads and parses a recipe edited since the snapshot (the edit bumped the level's version)", async () => {
    // Prepare
    const { store, bundled, versions, catalogue } = await setup();
    await new RecipeLoader({ store, bundled, catalogue: catalogue() }).listAvailable(SCOPE);
    const cold = new RecipeLoader({ store, bundled, catalogue: catalogue() });
    await store.put(TENANT, "web", recipePath("analyze"), "engine: ford\ndescription: edited around the snapshot\n");
    await versions.bump(TENANT, "web");

    // Act
    const recipe = await cold.load(SCOPE, "analyze");

    // Assess
    expect(recipe?.description).toBe("edited around the snapshot");
  });
});
