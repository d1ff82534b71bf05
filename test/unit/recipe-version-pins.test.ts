import { describe, expect, it } from "vitest";
import { DocumentService } from "../../shared/app/document-service.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { InvalidDocument } from "../../shared/errors.js";
import { parseRecipeDocument } from "../../shared/recipes/recipe-document-parser.js";
import { MAX_SKILL_TEXT_BYTES } from "../../shared/skills/skill-document-parser.js";
import type { Turn } from "../../shared/turns/turn.js";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { skillMd } from "../support/skill-fixtures.js";
import { PROJECT, steeringHarness, TENANT, type SteeringHarness } from "../support/steering-harness.js";

const SKILL = (name: string): string => `_vance/skills/${name}/SKILL.md`;
const turnOf = (result: unknown): Turn => result as Turn;
const failure = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** The versionId of the newest write of a skill's SKILL.md at one level. */
async function newestVersion(h: SteeringHarness, name: string, project = "_tenant"): Promise<string> {
  const versions = await h.documents.versions(TENANT, project, SKILL(name));
  return versions![0]!.versionId;
}

async function putRecipe(h: SteeringHarness, name: string, yaml: string): Promise<void> {
  await h.documents.put(TENANT, "_tenant", `_vance/recipes/${name}.yaml`, yaml);
}

describe("recipe version pins (skillVersions)", () => {
  it("composes the pinned version of a recipe skill while a newer one exists; an unpinned process composes the newest", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { body: "Pinned body." });
    const pinned = await newestVersion(h, "alpha");
    await h.putSkill("alpha", { body: "Newest body." });
    await putRecipe(h, "pinning", `engine: ford\ndefaultActiveSkills: [alpha]\nskillVersions:\n  alpha: ${pinned}\n`);
    await putRecipe(h, "unpinned", "engine: ford\ndefaultActiveSkills: [alpha]\n");
    const p = await h.spawn("pinning");
    const q = await h.spawn("unpinned");

    // Act
    const turn = turnOf((await h.compose(p.processId)).result);
    const other = turnOf((await h.compose(q.processId)).result);

    // Assess
    expect(p.skillVersions).toEqual({ alpha: pinned });
    expect(turn.skillSection).toContain("Pinned body.");
    expect(turn.skillSection).not.toContain("Newest body.");
    expect(other.skillSection).toContain("Newest body.");
    expect(q.skillVersions).toBeUndefined();
    expect(turn.activation).toContainEqual({ name: "alpha", outcome: "active", activatedBy: "recipe", pinnedVersion: pinned });
    expect(other.activation).toContainEqual({ name: "alpha", outcome: "active", activatedBy: "recipe" });
  });

  it("serves the pin to an explicit activation and to the catalog, and later recipe edits do not reach the running process", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("beta", { body: "Old beta.", description: "Old description of beta" });
    const pinned = await newestVersion(h, "beta");
    await h.putSkill("beta", { body: "New beta.", description: "New description of beta" });
    await putRecipe(h, "pinning", `engine: ford\nskillVersions:\n  beta: ${pinned}\n`);
    const p = await h.spawn("pinning");
    await putRecipe(h, "pinning", "engine: ford\n");

    // Act
    const before = turnOf((await h.compose(p.processId)).result);
    const activated = await h.activate(p.processId, "beta");
    const after = turnOf((await h.compose(p.processId)).result);

    // Assess
    expect(activated.status).toBe("DONE");
    expect(JSON.stringify(before.catalog)).toContain("Old description of beta");
    expect(JSON.stringify(before.catalog)).not.toContain("New description of beta");
    expect(after.skillSection).toContain("Old beta.");
    expect(after.skillSection).not.toContain("New beta.");
    expect((await h.process(p.processId)).skillVersions).toEqual({ beta: pinned });
  });

  it("refuses the spawn with 422 INVALID_DOCUMENT for a pin to a version that does not exist, naming the recipe and the pin", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha");
    await putRecipe(h, "ghost", "engine: ford\nskillVersions:\n  alpha: no-such-version\n");

    // Act
    const error = await failure(h.spawn("ghost", "worker"));
    const sameName = await h.spawn("plain", "worker");

    // Assess
    expect(error).toBeInstanceOf(InvalidDocument);
    const refused = error as InvalidDocument;
    expect(refused.path).toBe("_vance/recipes/ghost.yaml");
    expect(refused.problems.map((p) => p.message)).toEqual([
      "skillVersions.alpha: version 'no-such-version' of _vance/skills/alpha/SKILL.md does not exist at the VANCE level ('_tenant') that 'alpha' resolves from",
    ]);
    // Nothing was created: the name is still free.
    expect(sameName.name).toBe("worker");
  });

  it("refuses a pin where the deployment keeps no versions, saying so rather than 'does not exist'", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha");
    const pinned = await newestVersion(h, "alpha");
    await putRecipe(h, "pinning", `engine: ford\nskillVersions:\n  alpha: ${pinned}\n`);
    // As the S3 store built with `versioned: false` (the local stack without a history bucket).
    Object.assign(h.documents, { keepsVersions: false });

    // Act
    const error = (await failure(h.spawn("pinning"))) as InvalidDocument;

    // Assess
    expect(error).toBeInstanceOf(InvalidDocument);
    expect(error.problems.map((p) => p.message)).toEqual([
      "skillVersions.alpha: this deployment keeps no document versions (a versioned bucket or a history bucket is needed)",
    ]);
  });

  it("refuses a pin to a version of another level: the project level's skill does not have the tenant level's version", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { body: "Tenant alpha." });
    const tenantVersion = await newestVersion(h, "alpha");
    await h.putSkill("alpha", { body: "Project alpha." }, PROJECT);
    await putRecipe(h, "elsewhere", `engine: ford\nskillVersions:\n  alpha: ${tenantVersion}\n`);

    // Act
    const error = (await failure(h.spawn("elsewhere"))) as InvalidDocument;

    // Assess
    expect(error).toBeInstanceOf(InvalidDocument);
    expect(error.problems[0]!.message).toContain(`does not exist at the PROJECT level ('${PROJECT}') that 'alpha' resolves from`);
  });

  it("refuses a pin to a version that no longer validates, and a pin of a skill that does not resolve", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.documents.put(TENANT, "_tenant", SKILL("alpha"), "---\nname: [broken\n---\n");
    const broken = await newestVersion(h, "alpha");
    await h.putSkill("alpha");
    await putRecipe(h, "stale", `engine: ford\nskillVersions:\n  alpha: ${broken}\n  nobody: v1\n`);

    // Act
    const error = (await failure(h.spawn("stale"))) as InvalidDocument;

    // Assess
    expect(error).toBeInstanceOf(InvalidDocument);
    const messages = error.problems.map((p) => p.message);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(
      /^skillVersions\.alpha: version '.+' of _vance\/skills\/alpha\/SKILL\.md at the VANCE level \('_tenant'\) that 'alpha' resolves from no longer validates: /,
    );
    expect(messages[1]).toBe("skillVersions.nobody: skill 'nobody' does not resolve in this scope");
  });

  it("refuses a pin to a version larger than a SKILL.md may be, before reading it", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.documents.put(TENANT, "_tenant", SKILL("alpha"), new Uint8Array(MAX_SKILL_TEXT_BYTES + 1));
    const huge = await newestVersion(h, "alpha");
    await h.putSkill("alpha");
    await putRecipe(h, "huge", `engine: ford\nskillVersions:\n  alpha: ${huge}\n`);

    // Act
    const error = (await failure(h.spawn("huge"))) as InvalidDocument;

    // Assess
    expect(error).toBeInstanceOf(InvalidDocument);
    expect(error.problems.map((p) => p.message)).toEqual([
      `skillVersions.alpha: version '${huge}' of _vance/skills/alpha/SKILL.md at the VANCE level ('_tenant') that 'alpha' resolves from is ${MAX_SKILL_TEXT_BYTES + 1} bytes, more than a SKILL.md may be (${MAX_SKILL_TEXT_BYTES})`,
    ]);
  });

  it("drops a pinned skill whose version is gone after the spawn from the turn, with a warning, instead of composing another version", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { body: "Pinned body." });
    await putRecipe(
      h,
      "pinning",
      `engine: ford\ndefaultActiveSkills: [alpha]\nskillVersions:\n  alpha: ${await newestVersion(h, "alpha")}\n`,
    );
    const p = await h.spawn("pinning");
    // The level now resolves alpha from the project, whose document never had that version.
    await h.putSkill("alpha", { body: "Project body." }, PROJECT);

    // Act
    const turn = turnOf((await h.compose(p.processId)).result);

    // Assess
    expect(turn.skillSection).not.toContain("Project body.");
    expect(turn.skillSection).not.toContain("Pinned body.");
    expect(turn.warnings).toContain(
      `Skill 'alpha' is pinned by skillVersions to a version that cannot be served: version '${p.skillVersions!.alpha}' of _vance/skills/alpha/SKILL.md does not exist at the PROJECT level ('${PROJECT}') that 'alpha' resolves from`,
    );
  });
});

describe("recipe documents: skillVersions", () => {
  const problemsOf = (yaml: string): string[] => parseRecipeDocument("r", yaml, "_vance/recipes/r.yaml").problems.map((p) => p.message);

  it("accepts pins of allowed skills and refuses a pin the whitelist forbids", () => {
    // Act
    const allowed = parseRecipeDocument(
      "r",
      "engine: ford\nallowedSkills: [alpha]\nskillVersions:\n  alpha: abc\n",
      "_vance/recipes/r.yaml",
    );
    const forbidden = problemsOf("engine: ford\nallowedSkills: [alpha]\nskillVersions:\n  beta: abc\n");

    // Assess
    expect(allowed.recipe?.skillVersions).toEqual({ alpha: "abc" });
    expect(forbidden.join("\n")).toContain("'beta' is not in allowedSkills (a pinned skill must be an allowed skill)");
  });

  it("refuses a malformed version id, a malformed skill name and more than 50 pins", () => {
    // Prepare
    const many = Array.from({ length: 51 }, (_, i) => `  s${i}: v${i}`).join("\n");

    // Act
    const spaced = problemsOf("engine: ford\nskillVersions:\n  alpha: 'has spaces'\n");
    const badName = problemsOf("engine: ford\nskillVersions:\n  '../x': v1\n");
    const tooMany = problemsOf(`engine: ford\nskillVersions:\n${many}\n`);

    // Assess
    expect(spaced.join("\n")).toContain("must be a versionId");
    expect(badName.join("\n")).toContain("must be a skill name");
    expect(tooMany.join("\n")).toContain("at most 50 pinned skills");
  });
});

describe("recipe save: pins the recipe's own level cannot serve", () => {
  it("warns on save for a pin of a skill at the same level without that version, and not for a served pin or a skill of another level", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const service = new DocumentService(store);
    await store.put(TENANT, "_tenant", SKILL("alpha"), skillMd({ body: "Alpha." }));
    const served = (await store.versions(TENANT, "_tenant", SKILL("alpha")))![0]!.versionId;
    const yaml = `engine: ford\nskillVersions:\n  alpha: ${served}\n  beta: elsewhere\n`;
    const stale = "engine: ford\nskillVersions:\n  alpha: gone\n";

    // Act
    const fine = await service.put(IDENTITIES.admin, TENANT, "_tenant", "_vance/recipes/fine.yaml", new TextEncoder().encode(yaml));
    const warned = await service.put(IDENTITIES.admin, TENANT, "_tenant", "_vance/recipes/stale.yaml", new TextEncoder().encode(stale));

    // Assess
    expect(fine.warnings).toEqual([]);
    expect(warned.warnings).toEqual([
      {
        path: "_vance/recipes/stale.yaml",
        message:
          "skillVersions.alpha: 'gone' is not a version of _vance/skills/alpha/SKILL.md at this level: a spawn where 'alpha' resolves from here is refused",
      },
    ]);
  });

  it("warns on save for a pin to a version larger than a SKILL.md may be", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const service = new DocumentService(store);
    await store.put(TENANT, "_tenant", SKILL("alpha"), new Uint8Array(MAX_SKILL_TEXT_BYTES + 1));
    const huge = (await store.versions(TENANT, "_tenant", SKILL("alpha")))![0]!.versionId;
    await store.put(TENANT, "_tenant", SKILL("alpha"), skillMd({ body: "Alpha." }));

    // Act
    const saved = await service.put(
      IDENTITIES.admin,
      TENANT,
      "_tenant",
      "_vance/recipes/huge.yaml",
      new TextEncoder().encode(`engine: ford\nskillVersions:\n  alpha: ${huge}\n`),
    );

    // Assess
    expect(saved.warnings).toEqual([
      {
        path: "_vance/recipes/huge.yaml",
        message: `skillVersions.alpha: '${huge}' of _vance/skills/alpha/SKILL.md is larger than a SKILL.md may be: a spawn where 'alpha' resolves from here is refused`,
      },
    ]);
  });
});
