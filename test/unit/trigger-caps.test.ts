import { describe, expect, it } from "vitest";
import { DocumentService } from "../../shared/app/document-service.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { InvalidDocument } from "../../shared/errors.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";
import { MAX_PATTERN_TRIGGERS_PER_SKILL, type TriggerLevelCaps } from "../../shared/skills/triggers/trigger-caps.js";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { handlerHarness } from "../support/handler-harness.js";
import { EmptyLayer } from "../support/steering-harness.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";
import { hostilePattern } from "../support/trigger-attack-fixtures.js";

const TENANT = "acme";
const CAPS: TriggerLevelCaps = { patternsPerLevel: 12, triggersPerLevel: 20 };
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

let nextPattern = 0;
/** A SKILL.md with `patterns` distinct PATTERN triggers and `keywords` KEYWORDS triggers. */
function skillWith(patterns: number, keywords = 0): string {
  const lines = [
    ...Array.from({ length: patterns }, () => `  - type: PATTERN\n    pattern: ${JSON.stringify(hostilePattern(nextPattern++ % 1024))}`),
    ...Array.from({ length: keywords }, (_, i) => `  - type: KEYWORDS\n    keywords: [word${i}]`),
  ];
  return skillMd(lines.length === 0 ? {} : { extra: `triggers:\n${lines.join("\n")}` });
}

const failure = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("trigger caps per skill", () => {
  it(`refuses a SKILL.md with more than ${MAX_PATTERN_TRIGGERS_PER_SKILL} PATTERN triggers and saves one with exactly that many`, async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const service = new DocumentService(store);

    // Act
    const refused = await failure(service.put(IDENTITIES.admin, TENANT, "_tenant", skillPath("many"), bytes(skillWith(MAX_PATTERN_TRIGGERS_PER_SKILL + 1))));
    const saved = await service.put(IDENTITIES.admin, TENANT, "_tenant", skillPath("enough"), bytes(skillWith(MAX_PATTERN_TRIGGERS_PER_SKILL)));

    // Assess
    expect(refused).toBeInstanceOf(InvalidDocument);
    expect((refused as InvalidDocument).problems).toEqual([
      expect.objectContaining({ severity: "error", message: expect.stringMatching(/holds 11 PATTERN triggers; at most 10 are allowed per skill/) }),
    ]);
    expect(await store.get(TENANT, "_tenant", skillPath("many"))).toBeUndefined();
    expect(saved.path).toBe(skillPath("enough"));
  });

  it("skips a skill over the per-skill cap that was written to the bucket directly, and reports it", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    await store.put(TENANT, "_user_alice", skillPath("smuggled"), skillWith(MAX_PATTERN_TRIGGERS_PER_SKILL + 5));
    const loader = new SkillLoader({ store, bundled: new EmptyLayer() });
    const scope = { tenantId: TENANT, userId: "alice", projectId: "proj1" };

    // Act
    const listed = await loader.listAvailable(scope);
    const problems = await loader.problems(scope);

    // Assess
    expect(listed.map((s) => s.name)).toEqual([]);
    expect(problems).toEqual([expect.objectContaining({ name: "smuggled", source: "USER", message: expect.stringContaining("at most 10 are allowed per skill") })]);
  });
});

describe("trigger caps per level", () => {
  it.each([
    ["a user level", "_user_alice", IDENTITIES.alice],
    ["a project level", "proj1", IDENTITIES.padmin],
    ["the tenant level", "_tenant", IDENTITIES.admin],
  ])("refuses the save that would take %s past its PATTERN cap, naming the cap", async (_label, project, identity) => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const service = new DocumentService(store, undefined, CAPS);
    await service.put(identity, TENANT, project, skillPath("one"), bytes(skillWith(6)));
    await service.put(identity, TENANT, project, skillPath("two"), bytes(skillWith(6)));

    // Act
    const refused = await failure(service.put(identity, TENANT, project, skillPath("three"), bytes(skillWith(1))));

    // Assess
    expect(refused).toBeInstanceOf(InvalidDocument);
    expect((refused as InvalidDocument).message).toMatch(/would hold 13 PATTERN triggers; at most 12 are allowed per level/);
    expect(await store.get(TENANT, project, skillPath("three"))).toBeUndefined();
  });

  it("counts triggers of every kind against the level's trigger cap", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const service = new DocumentService(store, undefined, CAPS);
    await service.put(IDENTITIES.admin, TENANT, "_tenant", skillPath("words"), bytes(skillWith(0, 15)));

    // Act
    const refused = await failure(service.put(IDENTITIES.admin, TENANT, "_tenant", skillPath("more-words"), bytes(skillWith(0, 6))));

    // Assess
    expect((refused as InvalidDocument).message).toMatch(/would hold 21 triggers; at most 20 are allowed per level/);
  });

  it("counts each level on its own, replaces (not adds) the skill being saved, and always lets a save without triggers through", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const service = new DocumentService(store, undefined, CAPS);
    await service.put(IDENTITIES.admin, TENANT, "_tenant", skillPath("one"), bytes(skillWith(10)));
    await store.put(TENANT, "_tenant", skillPath("smuggled"), skillWith(10)); // over the cap behind the API's back

    // Act
    const otherLevel = await service.put(IDENTITIES.alice, TENANT, "_user_alice", skillPath("mine"), bytes(skillWith(10)));
    const replaced = await failure(service.put(IDENTITIES.admin, TENANT, "_tenant", skillPath("one"), bytes(skillWith(3))));
    const quiet = await service.put(IDENTITIES.admin, TENANT, "_tenant", skillPath("one"), bytes(skillWith(0)));
    const afterCleanup = await service.put(IDENTITIES.admin, TENANT, "_tenant", skillPath("two"), bytes(skillWith(2)));

    // Assess
    expect(otherLevel.path).toBe(skillPath("mine"));
    expect((replaced as InvalidDocument).message).toMatch(/would hold 13 PATTERN triggers/);
    expect(quiet.path).toBe(skillPath("one"));
    expect(afterCleanup.path).toBe(skillPath("two"));
  });

  it("drops, at load, the triggers of the skills past a level's cap (in name order) and reports each, keeping the skills", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    for (const name of ["a-first", "b-second", "c-third", "d-fourth"]) await store.put(TENANT, "_user_alice", skillPath(name), skillWith(5));
    await store.put(TENANT, "proj1", skillPath("project-skill"), skillWith(5));
    const loader = new SkillLoader({ store, bundled: new EmptyLayer(), triggerCaps: CAPS });
    const scope = { tenantId: TENANT, userId: "alice", projectId: "proj1" };

    // Act
    const listed = await loader.listAvailable(scope);
    const problems = await loader.problems(scope);

    // Assess
    expect(listed.map((s) => [s.name, s.triggers.length])).toEqual([
      ["a-first", 5],
      ["b-second", 5],
      ["c-third", 0],
      ["d-fourth", 0],
      ["project-skill", 5],
    ]);
    expect(problems.map((p) => [p.name, p.source])).toEqual([
      ["c-third", "USER"],
      ["d-fourth", "USER"],
    ]);
    expect(problems[0]?.message).toMatch(/^triggers ignored: this level's skills would hold 15 PATTERN triggers; at most 12/);
  });
});

describe("PUT …/documents/{path} of a SKILL.md past the trigger caps", () => {
  it("answers 422 INVALID_DOCUMENT with a problem naming the cap, per skill and per level", async () => {
    // Prepare
    const h = await handlerHarness();
    const put = (name: string, body: string) =>
      h.call("documents", { method: "PUT", path: `/brain/acme/projects/_user_alice/documents/${skillPath(name)}`, headers: { "content-type": "text/markdown" }, body });
    const saved: number[] = [];
    for (let i = 0; i < 20; i++) saved.push((await put(`bomb-${i}`, skillWith(10))).status);

    // Act
    const perSkill = await put("too-many", skillWith(11));
    const perLevel = await put("bomb-20", skillWith(1));

    // Assess
    expect(saved.every((status) => status === 200)).toBe(true);
    expect(perSkill.status).toBe(422);
    expect(perSkill.json.error.code).toBe("INVALID_DOCUMENT");
    expect(perSkill.json.error.problems[0].message).toMatch(/at most 10 are allowed per skill/);
    expect(perLevel.status).toBe(422);
    expect(perLevel.json.error.problems).toEqual([{ path: skillPath("bomb-20"), message: expect.stringMatching(/would hold 201 PATTERN triggers; at most 200 are allowed per level/) }]);
  });
});
