import { afterAll, describe, expect, it } from "vitest";
import { InvalidRequest } from "../../shared/errors.js";
import { BundledDocumentLayer } from "../../shared/documents/bundled-document-layer.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { RecipeLoader } from "../../shared/recipes/recipe-loader.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";
import type { SkillScopeContext } from "../../shared/documents/cascade-scope.js";
import { bundledFixture, removeBundledFixtures } from "../support/bundled-fixture.js";

const TENANT = "acme";
const FULL: SkillScopeContext = { tenantId: TENANT, userId: "bob", projectId: "web" };
const recipePath = (name: string) => `_vance/recipes/${name}.yaml`;
const described = (description: string, extra = "") => `engine: ford\ndescription: ${description}\n${extra}`;

type Files = Record<string, string | Uint8Array>;

async function setup(layers: { user?: Files; project?: Files; tenant?: Files; bundled?: Files }) {
  const store = new InMemoryDocumentStore();
  const put = async (project: string, files: Files = {}) => {
    for (const [path, body] of Object.entries(files)) await store.put(TENANT, project, path, body);
  };
  await put("_user_bob", layers.user);
  await put("web", layers.project);
  await put("_tenant", layers.tenant);
  const bundled = await bundledFixture(layers.bundled ?? {});
  return { store, loader: new RecipeLoader({ store, bundled }) };
}

afterAll(removeBundledFixtures);

describe("RecipeLoader cascade", () => {
  it("prefers USER over PROJECT over VANCE over RESOURCE, falling outward as inner documents are deleted", async () => {
    // Prepare
    const { store, loader } = await setup({
      user: { [recipePath("analyze")]: described("user") },
      project: { [recipePath("analyze")]: described("project") },
      tenant: { [recipePath("analyze")]: described("tenant") },
      bundled: { [recipePath("analyze")]: described("bundled") },
    });
    const seen: Array<[string | undefined, string | undefined, string | undefined]> = [];

    // Act
    for (const project of ["_user_bob", "web", "_tenant", null]) {
      const recipe = await loader.load(FULL, "analyze");
      seen.push([recipe?.description, recipe?.source, recipe?.location.project]);
      if (project) await store.delete(TENANT, project, recipePath("analyze"));
    }

    // Assess
    expect(seen).toEqual([
      ["user", "USER", "_user_bob"],
      ["project", "PROJECT", "web"],
      ["tenant", "VANCE", "_tenant"],
      ["bundled", "RESOURCE", "bundled"],
    ]);
  });

  it("skips the USER layer without a user and the PROJECT layer without a project", async () => {
    // Prepare
    const { loader } = await setup({
      user: { [recipePath("analyze")]: described("user") },
      project: { [recipePath("analyze")]: described("project") },
      tenant: { [recipePath("analyze")]: described("tenant") },
    });

    // Act
    const noUser = await loader.load({ tenantId: TENANT, projectId: "web" }, "analyze");
    const nobody = await loader.load({ tenantId: TENANT }, "analyze");

    // Assess
    expect(noUser?.source).toBe("PROJECT");
    expect(nobody?.source).toBe("VANCE");
  });

  it("falls through a defective inner recipe to the next layer and reports it in problems()", async () => {
    // Prepare
    const { loader } = await setup({
      user: { [recipePath("analyze")]: "engine: marvin\n" },
      project: { [recipePath("analyze")]: new Uint8Array([0xff, 0xfe, 0x00]) },
      tenant: { [recipePath("analyze")]: described("tenant", "allowedSkills: []\ndefaultActiveSkills: [code-review]\n") },
      bundled: { [recipePath("analyze")]: described("bundled") },
    });

    // Act
    const recipe = await loader.load(FULL, "analyze");
    const problems = await loader.problems(FULL);

    // Assess
    expect(recipe?.description).toBe("bundled");
    expect(recipe?.source).toBe("RESOURCE");
    expect(problems).toEqual([
      {
        name: "analyze",
        source: "USER",
        path: recipePath("analyze"),
        line: 1,
        message: "engine: unknown engine 'marvin' (known: ford, arthur, frankie)",
      },
      {
        name: "analyze",
        source: "PROJECT",
        path: recipePath("analyze"),
        message: "is not UTF-8 text (invalid byte sequence or binary content)",
      },
      {
        name: "analyze",
        source: "VANCE",
        path: recipePath("analyze"),
        line: 4,
        message: "defaultActiveSkills[0]: 'code-review' is not in allowedSkills (default skills must be allowed skills)",
      },
    ]);
  });

  it("returns undefined when every layer's recipe is defective or absent, and for names that cannot be recipes", async () => {
    // Prepare
    const { loader } = await setup({ project: { [recipePath("broken")]: "engine: [\n" } });

    // Act
    const broken = await loader.load(FULL, "broken");
    const missing = await loader.load(FULL, "nothing-here");
    const traversal = await loader.load(FULL, "../default");

    // Assess
    expect(broken).toBeUndefined();
    expect(missing).toBeUndefined();
    expect(traversal).toBeUndefined();
  });

  it("lists the union of all layers by name, inner layers winning, defective ones and bad file names left out", async () => {
    // Prepare
    const { loader } = await setup({
      user: { [recipePath("beta")]: described("user beta") },
      project: { [recipePath("alpha")]: described("project alpha"), [recipePath("Bad_Name")]: described("x") },
      tenant: { [recipePath("beta")]: described("tenant beta"), [recipePath("gamma")]: "engine: nope\n" },
      bundled: {
        [recipePath("alpha")]: described("bundled alpha"),
        [recipePath("delta")]: described("bundled delta"),
        "_vance/recipes/readme.txt": "x",
      },
    });

    // Act
    const recipes = await loader.listAvailable(FULL);
    const problems = await loader.problems(FULL);

    // Assess
    expect(recipes.map((r) => [r.name, r.description, r.source])).toEqual([
      ["alpha", "project alpha", "PROJECT"],
      ["beta", "user beta", "USER"],
      ["delta", "bundled delta", "RESOURCE"],
    ]);
    expect(problems.map((p) => [p.name, p.source])).toEqual([
      ["Bad_Name", "PROJECT"],
      ["gamma", "VANCE"],
    ]);
  });

  it("refuses a malformed scope with InvalidRequest instead of reading anything", async () => {
    // Prepare
    const { loader } = await setup({});

    // Act
    const attempt = loader.load({ tenantId: TENANT, projectId: "../other" }, "default");

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(InvalidRequest);
  });
});

describe("bundled recipes", () => {
  const bundled = new BundledDocumentLayer();
  const store = new InMemoryDocumentStore();
  const recipes = new RecipeLoader({ store, bundled });
  const skills = new SkillLoader({ store, bundled });
  const scope: SkillScopeContext = { tenantId: TENANT, projectId: "web" };

  it("load without problems: default, analyze and code-read", async () => {
    // Act
    const listed = await recipes.listAvailable(scope);
    const problems = await recipes.problems(scope);

    // Assess
    expect(problems).toEqual([]);
    expect(listed.map((r) => [r.name, r.engine, r.source])).toEqual([
      ["analyze", "ford", "RESOURCE"],
      ["code-read", "ford", "RESOURCE"],
      ["default", "ford", "RESOURCE"],
    ]);
    expect(listed.flatMap((r) => r.warnings)).toEqual([]);
  });

  it("name only skills that the bundled layer provides", async () => {
    // Prepare
    const listed = await recipes.listAvailable(scope);
    const available = new Set((await skills.listAvailable(scope)).map((s) => s.name));

    // Act
    const named = listed.flatMap((r) => [...r.defaultActiveSkills, ...(r.allowedSkills ?? [])]);

    // Assess
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((name) => !available.has(name))).toEqual([]);
  });

  it("configure analyze as a review-only whitelist and code-read as the history-free worker of spec §2c", async () => {
    // Act
    const analyze = await recipes.load(scope, "analyze");
    const codeRead = await recipes.load(scope, "code-read");
    const fallback = await recipes.load(scope, "default");

    // Assess
    expect(analyze).toMatchObject({
      defaultActiveSkills: ["typescript-style"],
      allowedSkills: ["code-review", "typescript-style", "code-guard"],
      locked: false,
    });
    expect(codeRead).toMatchObject({ allowedSkills: null, params: { inheritContext: "none" } });
    expect(fallback).toMatchObject({ engine: "ford", defaultActiveSkills: [], allowedSkills: null, locked: false });
  });
});
