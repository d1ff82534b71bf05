import { afterAll, describe, expect, it } from "vitest";
import { InvalidRequest, RecipeNotFound } from "../../shared/errors.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { InMemoryProcessStore } from "../../shared/processes/in-memory-process-store.js";
import { NameTaken } from "../../shared/processes/process-errors.js";
import { PROCESS_ID_PATTERN, deterministicChildId, newProcessId } from "../../shared/processes/process-ids.js";
import { nextIndexedName, spawnProcess } from "../../shared/processes/process-spawn.js";
import type { SpawnDeps, SpawnRequest } from "../../shared/processes/process-spawn.js";
import { RecipeLoader } from "../../shared/recipes/recipe-loader.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";
import { SkillResolver } from "../../shared/skills/skill-resolver.js";
import { bundledFixture, removeBundledFixtures } from "../support/bundled-fixture.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";

const TENANT = "acme";
const NOW = new Date("2025-03-01T10:00:00.000Z");
const recipePath = (name: string) => `_vance/recipes/${name}.yaml`;

const BUNDLED = {
  [recipePath("analyze")]: [
    "engine: ford",
    "defaultActiveSkills: [typescript-style, code-review, vanished]",
    "allowedSkills: [code-review, typescript-style, code-guard, vanished]",
    "locked: true",
    "",
  ].join("\n"),
  [recipePath("open")]: "engine: arthur\n",
  [recipePath("lockdown")]: "engine: frankie\nallowedSkills: []\n",
  [skillPath("typescript-style")]: skillMd({ title: "TS (bundled)" }),
  [skillPath("code-review")]: skillMd({ title: "Review (bundled)" }),
};

async function setup() {
  let counter = 0;
  const documents = new InMemoryDocumentStore();
  const bundled = await bundledFixture(BUNDLED);
  const processes = new InMemoryProcessStore();
  const deps: SpawnDeps = {
    processes,
    recipes: new RecipeLoader({ store: documents, bundled }),
    skills: new SkillResolver(new SkillLoader({ store: documents, bundled })),
    now: () => NOW,
    ids: { newProcessId: () => `p${String(++counter).padStart(3, "0")}` },
  };
  return { documents, processes, deps };
}

const request = (overrides: Partial<SpawnRequest> = {}): SpawnRequest => ({
  tenant: TENANT,
  sessionId: "s-1",
  userId: "bob",
  projectId: "web",
  recipe: "analyze",
  ...overrides,
});

/** The rejection of `promise`; fails the test if it resolves. */
const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    (value) => expect.fail(`expected a rejection, got ${JSON.stringify(value)}`),
    (error: unknown) => error,
  );

afterAll(removeBundledFixtures);

describe("spawnProcess: recipe defaulting (spec §7a)", () => {
  it("writes the recipe's default skills as sticky fromRecipe entries resolved in the process scope", async () => {
    // Prepare
    const { documents, deps } = await setup();
    await documents.put(TENANT, "web", skillPath("typescript-style"), skillMd({ title: "TS (project)" }));

    // Act
    const process = await spawnProcess(deps, request({ name: "analysis" }));

    // Assess
    const at = NOW.toISOString();
    expect(process.activeSkills).toEqual([
      {
        name: "typescript-style",
        resolvedFromScope: "PROJECT",
        oneShot: false,
        fromRecipe: true,
        activatedAt: at,
        args: null,
        activatedBy: "recipe",
      },
      {
        name: "code-review",
        resolvedFromScope: "RESOURCE",
        oneShot: false,
        fromRecipe: true,
        activatedAt: at,
        args: null,
        activatedBy: "recipe",
      },
      // Not visible anywhere: kept with the default scope; engines re-resolve per turn.
      {
        name: "vanished",
        resolvedFromScope: "RESOURCE",
        oneShot: false,
        fromRecipe: true,
        activatedAt: at,
        args: null,
        activatedBy: "recipe",
      },
    ]);
  });

  it("snapshots allowedSkills, copies locked and engine, and stores the process version 1", async () => {
    // Prepare
    const { processes, deps } = await setup();

    // Act
    const process = await spawnProcess(deps, request({ name: "analysis", parentProcessId: "parent-1" }));
    const stored = await processes.get(TENANT, process.processId);

    // Assess
    expect(process).toMatchObject({
      tenant: TENANT,
      processId: "p001",
      sessionId: "s-1",
      name: "analysis",
      recipe: "analyze",
      engine: "ford",
      projectId: "web",
      userId: "bob",
      allowedSkillsOverride: ["code-review", "typescript-style", "code-guard", "vanished"],
      locked: true,
      parentProcessId: "parent-1",
      pending: [],
      guard: null,
      children: [],
      status: "ACTIVE",
      version: 1,
    });
    expect(stored).toEqual(process);
  });

  it("keeps a null whitelist as null and an empty one as [] (lockdown)", async () => {
    // Prepare
    const { deps } = await setup();

    // Act
    const open = await spawnProcess(deps, request({ recipe: "open", name: "a" }));
    const lockdown = await spawnProcess(deps, request({ recipe: "lockdown", name: "b" }));

    // Assess
    expect(open).toMatchObject({ engine: "arthur", allowedSkillsOverride: null, locked: false, activeSkills: [] });
    expect(lockdown).toMatchObject({ engine: "frankie", allowedSkillsOverride: [], locked: false, activeSkills: [] });
  });

  it("uses the recipe as the cascade resolves it for the process scope, and later edits do not reach the process", async () => {
    // Prepare
    const { documents, processes, deps } = await setup();
    await documents.put(TENANT, "web", recipePath("analyze"), "engine: arthur\nallowedSkills: [code-review]\n");

    // Act
    const process = await spawnProcess(deps, request({ name: "analysis" }));
    await documents.put(TENANT, "web", recipePath("analyze"), "engine: ford\nallowedSkills: []\nlocked: true\n");
    const later = await processes.get(TENANT, process.processId);

    // Assess
    expect(later).toMatchObject({ engine: "arthur", allowedSkillsOverride: ["code-review"], locked: false, activeSkills: [] });
  });
});

describe("spawnProcess: errors", () => {
  it("refuses an unknown recipe, or a name that cannot be one, with RecipeNotFound and creates nothing", async () => {
    // Prepare
    const { processes, deps } = await setup();

    // Act
    const unknown = await failure(spawnProcess(deps, request({ recipe: "nope", name: "x" })));
    const traversal = await failure(spawnProcess(deps, request({ recipe: "../analyze", name: "y" })));

    // Assess
    expect(unknown).toBeInstanceOf(RecipeNotFound);
    expect(unknown).toMatchObject({ code: "RECIPE_NOT_FOUND", recipeName: "nope" });
    expect(traversal).toBeInstanceOf(RecipeNotFound);
    // Neither attempt claimed its name.
    const x = await spawnProcess(deps, request({ recipe: "open", name: "x" }));
    expect(await processes.get(TENANT, x.processId)).toMatchObject({ name: "x", recipe: "open" });
  });

  it("refuses a name already used in the session with NameTaken, and allows it in another session", async () => {
    // Prepare
    const { deps } = await setup();
    await spawnProcess(deps, request({ name: "chat" }));

    // Act
    const duplicate = await failure(spawnProcess(deps, request({ name: "chat", recipe: "open" })));
    const elsewhere = await spawnProcess(deps, request({ name: "chat", sessionId: "s-2" }));

    // Assess
    expect(duplicate).toBeInstanceOf(NameTaken);
    expect(duplicate).toMatchObject({ code: "NAME_TAKEN", processName: "chat" });
    expect(elsewhere.sessionId).toBe("s-2");
  });

  it.each([
    ["an empty name", { name: "" }],
    ["a name with a control character", { name: "a\nb" }],
    ["a name with surrounding blanks", { name: " chat " }],
    ["a malformed project", { projectId: "../x" }],
    ["a malformed tenant", { tenant: "a/b" }],
    ["an empty session", { sessionId: "" }],
  ])("refuses %s with InvalidRequest", async (_case, overrides) => {
    // Prepare
    const { deps } = await setup();

    // Act
    const attempt = spawnProcess(deps, request(overrides));

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(InvalidRequest);
  });
});

describe("spawnProcess: automatic names", () => {
  it("names processes <recipe>-1, <recipe>-2, … and skips names already taken", async () => {
    // Prepare
    const { deps } = await setup();
    await spawnProcess(deps, request({ name: "analyze-2", recipe: "open" }));

    // Act
    const first = await spawnProcess(deps, request());
    const second = await spawnProcess(deps, request());
    const third = await spawnProcess(deps, request());

    // Assess
    expect([first.name, second.name, third.name]).toEqual(["analyze-1", "analyze-3", "analyze-4"]);
    expect(new Set([first.processId, second.processId, third.processId]).size).toBe(3);
  });

  it("names a worker after a given base from a given index, probing past taken names", async () => {
    // Prepare
    const { deps } = await setup();
    await spawnProcess(deps, request({ name: "code-review-3", recipe: "open" }));

    // Act
    const worker = await spawnProcess(deps, request({ recipe: "open", autoName: { base: "code-review", firstIndex: 3 } }));

    // Assess
    expect(worker.name).toBe("code-review-4");
    expect(worker.recipe).toBe("open");
  });

  it("a redelivered spawn with a deterministic child id returns the same process instead of a second child", async () => {
    // Prepare
    const { processes, deps } = await setup();
    await spawnProcess(deps, request({ name: "analyze-1", recipe: "open" }));
    const processId = deterministicChildId("parent-1", "req-42");
    const spawn = () => spawnProcess(deps, request({ parentProcessId: "parent-1", processId }));

    // Act
    const first = await spawn();
    const again = await spawn();
    const next = await spawnProcess(deps, request());

    // Assess
    expect(first.name).toBe("analyze-2");
    expect(again).toEqual(first);
    expect(await processes.get(TENANT, processId)).toEqual(first);
    // The redelivery did not take analyze-3: exactly one child exists for that request.
    expect(next.name).toBe("analyze-3");
  });
});

describe("nextIndexedName", () => {
  it("retries on NameTaken only and never reports a collision as success", async () => {
    // Prepare
    const tried: string[] = [];
    const taken = new Set(["review-1", "review-2"]);
    const tryCreate = async (name: string) => {
      tried.push(name);
      if (taken.has(name)) throw new NameTaken("s-1", name);
      return name;
    };

    // Act
    const created = await nextIndexedName("review", tryCreate);
    const exhausted = nextIndexedName("review", tryCreate, { maxAttempts: 2 });

    // Assess
    expect(created).toBe("review-3");
    await expect(exhausted).rejects.toMatchObject({ processName: "review-2" });
    expect(tried).toEqual(["review-1", "review-2", "review-3", "review-1", "review-2"]);
  });

  it("stops at the first error that is not a name collision", async () => {
    // Prepare
    const tried: string[] = [];
    const failure = new InvalidRequest("store down");

    // Act
    const attempt = nextIndexedName("review", async (name) => {
      tried.push(name);
      throw failure;
    });

    // Assess
    await expect(attempt).rejects.toBe(failure);
    expect(tried).toEqual(["review-1"]);
  });

  it("starts at firstIndex when the caller knows the lower names are taken", async () => {
    // Act
    const name = await nextIndexedName("review", async (n) => n, { firstIndex: 7 });

    // Assess
    expect(name).toBe("review-7");
  });
});

describe("process ids", () => {
  it("are 26 URL-safe characters that sort by creation time", () => {
    // Act
    const ids = [0, 1, 1_000, Date.parse("2025-03-01T10:00:00Z"), Date.parse("2090-01-01T00:00:00Z")].map((t) => newProcessId(t));
    const random = Array.from({ length: 50 }, () => newProcessId());

    // Assess
    for (const id of [...ids, ...random]) expect(id).toMatch(PROCESS_ID_PATTERN);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(random).size).toBe(50);
  });

  it("for a child are derived from parent and request: stable for the same pair, distinct otherwise", () => {
    // Act
    const id = deterministicChildId("parent-1", "req-1");

    // Assess
    expect(id).toMatch(PROCESS_ID_PATTERN);
    expect(deterministicChildId("parent-1", "req-1")).toBe(id);
    expect(deterministicChildId("parent-1", "req-2")).not.toBe(id);
    expect(deterministicChildId("parent-2", "req-1")).not.toBe(id);
    expect(deterministicChildId("parent-1r", "eq-1")).not.toBe(deterministicChildId("parent-1", "req-1"));
  });
});
