import { describe, expect, it } from "vitest";
import { names, steeringHarness, TENANT } from "../support/steering-harness.js";
import type { SteeringHarness } from "../support/steering-harness.js";

const triggered = { extra: "triggers:\n  - type: KEYWORDS\n    keywords: [deploy]" };

async function withSkills(): Promise<SteeringHarness> {
  const h = await steeringHarness();
  await h.putSkill("alpha", { extra: "deactivate:\n  - status.set alpha gone" });
  await h.putSkill("beta");
  await h.putSkill("outsider");
  await h.putSkill("trig", triggered);
  await h.putSkill("trig-out", triggered);
  return h;
}

const composeTurnOf = async (h: SteeringHarness, processId: string, message: string): Promise<string[]> => {
  const record = await h.compose(processId, message);
  return (record.result as { activeSkills: { name: string }[] }).activeSkills.map((s) => s.name);
};

describe("§7b whitelist filter, cell by cell", () => {
  it("null whitelist: any visible skill activates explicitly", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("open");

    // Act
    const record = await h.activate(p.processId, "outsider");

    // Assess
    expect(p.allowedSkillsOverride).toBeNull();
    expect(record.status).toBe("DONE");
    expect(names(await h.process(p.processId))).toEqual(["outsider"]);
  });

  it("null whitelist: any triggered skill activates", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("open");

    // Act
    const active = await composeTurnOf(h, p.processId, "please deploy");

    // Assess
    expect(active).toEqual(["trig", "trig-out"]);
  });

  it("empty whitelist (lockdown): explicit activation fails with SKILL_NOT_ALLOWED naming the recipe", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("lockdown");

    // Act
    const record = await h.activate(p.processId, "alpha");

    // Assess
    expect(p.allowedSkillsOverride).toEqual([]);
    expect(record).toMatchObject({
      status: "FAILED",
      error: { code: "SKILL_NOT_ALLOWED", message: "Skill 'alpha' is not allowed by recipe 'lockdown'" },
    });
    expect((await h.process(p.processId)).version).toBe(p.version);
  });

  it("empty whitelist (lockdown): no trigger ever activates", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("lockdown");

    // Act
    const active = await composeTurnOf(h, p.processId, "please deploy");

    // Assess
    expect(active).toEqual([]);
  });

  it("list whitelist: a listed skill activates, an unlisted one fails with SKILL_NOT_ALLOWED", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("whitelist");

    // Act
    const listed = await h.activate(p.processId, "beta");
    const unlisted = await h.activate(p.processId, "outsider");

    // Assess
    expect(listed.status).toBe("DONE");
    expect(unlisted).toMatchObject({
      status: "FAILED",
      error: { code: "SKILL_NOT_ALLOWED", message: "Skill 'outsider' is not allowed by recipe 'whitelist'" },
    });
    expect(names(await h.process(p.processId))).toEqual(["alpha", "beta"]);
  });

  it("list whitelist: triggers outside it are invisible", async () => {
    // Prepare
    const h = await withSkills();
    await h.putFile("_vance/recipes/trigwl.yaml", "engine: ford\nallowedSkills: [trig]\n");
    const p = await h.spawn("trigwl");

    // Act
    const active = await composeTurnOf(h, p.processId, "please deploy");

    // Assess
    expect(active).toEqual(["trig"]);
  });

  it("defaultActiveSkills outside the whitelist: the recipe does not load, so nothing can be spawned from it", async () => {
    // Prepare
    const h = await withSkills();
    await h.putFile("_vance/recipes/broken.yaml", "engine: ford\nallowedSkills: [beta]\ndefaultActiveSkills: [alpha]\n");

    // Act
    const spawning = h.spawn("broken");

    // Assess
    await expect(spawning).rejects.toMatchObject({ code: "RECIPE_NOT_FOUND" });
  });

  it("reports SKILL_NOT_FOUND before the whitelist for a name nobody can see", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("lockdown");

    // Act
    const record = await h.activate(p.processId, "ghost");

    // Assess
    expect(record.error?.code).toBe("SKILL_NOT_FOUND");
  });
});

describe("§7c lock semantics, cell by cell", () => {
  it("locked=false: /skill clear of a recipe skill is allowed and fires its deactivate:", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("unlocked");

    // Act
    const record = await h.clear(p.processId, "alpha");

    // Assess
    const after = await h.process(p.processId);
    expect(record).toMatchObject({ status: "DONE", result: { activeSkills: [] } });
    expect(after).toMatchObject({ activeSkills: [], statusText: "alpha gone" });
  });

  it("locked=false: CLEAR_ALL clears recipe skills too", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("unlocked");
    await h.activate(p.processId, "beta");

    // Act
    const record = await h.clearAll(p.processId);

    // Assess
    expect(record.result).toEqual({ activeSkills: [] });
  });

  it("locked=false: triggers and /skill are allowed", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("unlocked");

    // Act
    const explicit = await h.activate(p.processId, "beta");
    const active = await composeTurnOf(h, p.processId, "deploy");

    // Assess
    expect(explicit.status).toBe("DONE");
    expect(active).toEqual(["alpha", "beta", "trig", "trig-out"]);
  });

  it("locked=true: /skill clear of a recipe skill fails with SKILL_LOCKED and keeps it", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("locked");

    // Act
    const record = await h.clear(p.processId, "alpha");

    // Assess
    expect(record).toMatchObject({ status: "FAILED", error: { code: "SKILL_LOCKED" } });
    const after = await h.process(p.processId);
    expect(names(after)).toEqual(["alpha"]);
    expect(after.statusText).toBeUndefined();
  });

  it("locked=true: /skill clear of a skill not from the recipe is allowed", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("locked");
    await h.activate(p.processId, "beta");

    // Act
    const record = await h.clear(p.processId, "beta");

    // Assess
    expect(record.status).toBe("DONE");
    expect(names(await h.process(p.processId))).toEqual(["alpha"]);
  });

  it("locked=true: CLEAR_ALL clears every non-recipe skill and succeeds", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("locked");
    await h.activate(p.processId, "beta");
    await h.activate(p.processId, "outsider");

    // Act
    const record = await h.clearAll(p.processId);

    // Assess
    expect(record.status).toBe("DONE");
    expect((record.result as { activeSkills: { name: string }[] }).activeSkills.map((s) => s.name)).toEqual(["alpha"]);
    expect((await h.process(p.processId)).statusText).toBeUndefined();
  });

  it("locked=true: triggers and /skill are additive", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("locked");

    // Act
    const explicit = await h.activate(p.processId, "beta");
    const active = await composeTurnOf(h, p.processId, "deploy");

    // Assess
    expect(explicit.status).toBe("DONE");
    expect(active).toEqual(["alpha", "beta", "trig", "trig-out"]);
  });
});

describe("SkillSteerProcessor: CLEAR / CLEAR_ALL", () => {
  it("treats CLEAR of a skill that is not active as success without a write", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("open");

    // Act
    const record = await h.clear(p.processId, "beta");

    // Assess
    expect(record).toMatchObject({ status: "DONE", result: { activeSkills: [] } });
    expect((await h.process(p.processId)).version).toBe(p.version);
  });

  it("runs deactivate: best effort: a failing step is reported, the steps after it and other skills still run", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("first", { extra: "deactivate:\n  - mode.clear" });
    await h.putSkill("second", {
      extra: "activate:\n  - guard inline x\ndeactivate:\n  - explode now\n  - guard clear\n  - status.set second gone",
    });
    const p = await h.spawn("open");
    await h.activate(p.processId, "first");
    await h.activate(p.processId, "second");

    // Act
    const record = await h.clearAll(p.processId);

    // Assess
    const after = await h.process(p.processId);
    expect(after).toMatchObject({ activeSkills: [], guard: null, statusText: "second gone" });
    expect(record).toMatchObject({ status: "DONE", result: { activeSkills: [], warnings: [expect.stringContaining("explode")] } });
  });

  it("clears a skill whose document is gone, without deactivate:, and says so", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha");
    const p = await h.spawn("open");
    await h.activate(p.processId, "alpha");
    await h.documents.delete(TENANT, "_tenant", "_vance/skills/alpha/SKILL.md");

    // Act
    const record = await h.clear(p.processId, "alpha");

    // Assess
    expect(record).toMatchObject({
      status: "DONE",
      result: { activeSkills: [], warnings: [expect.stringContaining("no longer resolves")] },
    });
  });
});
