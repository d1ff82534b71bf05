import { describe, expect, it } from "vitest";
import { laneModelActivation } from "../../shared/app/lane-model-activation.js";
import type { SkillsApp } from "../../shared/app/skills-app.js";
import { ActiveSkillRef } from "../../shared/processes/process.js";
import { CATALOG_HEADER } from "../../shared/skills/skill-catalog.js";
import { SKILL_ACTIVATE_TOOL } from "../../shared/turns/service-tool-specs.js";
import type { Turn } from "../../shared/turns/turn.js";
import type { ModelActivationResult } from "../../shared/tools/model-activation.js";
import { ALICE, steeringHarness } from "../support/steering-harness.js";
import type { SteeringHarness } from "../support/steering-harness.js";

const turnOf = (result: unknown): Turn => result as Turn;

const drainingApps = new WeakMap<SteeringHarness, SkillsApp>();

/**
 * The app, but waiting drains the in-memory lane instead of polling for it. Drains run one after
 * the other, as one SQS consumer per message group would: the in-memory lane is not made for
 * two drains delivering the same head at once.
 */
function drainingApp(h: SteeringHarness): SkillsApp {
  const known = drainingApps.get(h);
  if (known) return known;
  let draining: Promise<unknown> = Promise.resolve();
  const drain = (): Promise<unknown> => (draining = draining.then(() => h.drain()));
  const app = Object.assign({}, h.app, {
    waitForRequest: async (tenant: string, processId: string, requestId: string) => {
      for (let attempt = 0; attempt < 500; attempt++) {
        await drain();
        const record = await h.app.getRequest(tenant, processId, requestId);
        if (record !== undefined && record.status !== "QUEUED") return record;
        await new Promise((resolve) => setImmediate(resolve));
      }
      return h.app.getRequest(tenant, processId, requestId);
    },
  });
  drainingApps.set(h, app);
  return app;
}

const modelActivate = (h: SteeringHarness, processId: string, skillName: string, args?: string): Promise<ModelActivationResult> =>
  h
    .process(processId)
    .then((process) =>
      laneModelActivation(drainingApp(h)).activate(process, ALICE, { skillName, ...(args !== undefined ? { args } : {}) }),
    );

async function withSkills(): Promise<SteeringHarness> {
  const h = await steeringHarness();
  await h.putSkill("alpha", { description: "Alpha skill", body: "Alpha body." });
  await h.putSkill("beta", { description: "Beta skill", body: "Beta body.", extra: "when_to_use: when beta things come up" });
  await h.putSkill("model-only", { description: "Only for the model", body: "Hidden body.", extra: "user-invocable: false" });
  await h.putSkill("user-only", { description: "Only for users", body: "User body.", extra: "disable-model-invocation: true" });
  await h.putSkill("needs-arg", {
    description: "Takes a target",
    body: "Target: {{ args.target }}",
    extra: "arguments:\n  - name: target\n    required: true",
  });
  return h;
}

describe("Turn catalog", () => {
  it("lists the model's candidates, adds skill_activate with their names as an enum, and renders the block after the skill section", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("open");
    await h.activate(p.processId, "alpha");

    // Act
    const turn = turnOf((await h.compose(p.processId, "hello")).result);

    // Assess
    expect(turn.catalog.entries.map((e) => e.name)).toEqual(["beta", "model-only", "needs-arg"]);
    expect(turn.catalog.entries[0]).toEqual({
      name: "beta",
      description: "Beta skill when beta things come up",
      source: "VANCE",
      approxTokens: expect.any(Number),
    });
    expect(turn.catalog.omitted).toEqual([]);
    expect(turn.catalog.budgetChars).toBe(8_000);
    expect(turn.tools).toContain(SKILL_ACTIVATE_TOOL);
    const spec = turn.toolSpecs.find((s) => s.name === SKILL_ACTIVATE_TOOL)!;
    expect(spec.inputSchema).toMatchObject({
      properties: { name: { enum: ["beta", "model-only", "needs-arg"] }, args: { type: "string" } },
      required: ["name"],
    });
    expect(turn.systemPrompt).toHaveLength(3);
    expect(turn.systemPrompt[1]!.content).toBe(turn.skillSection);
    expect(turn.systemPrompt[2]!.content).toBe(
      [
        CATALOG_HEADER,
        "- beta: Beta skill when beta things come up",
        "- model-only: Only for the model",
        "- needs-arg: Takes a target",
      ].join("\n"),
    );
    expect(turn.catalog.usedChars).toBe(turn.systemPrompt[2]!.content.length);
    expect(turn.skillTokens).toEqual([{ name: "alpha", approxTokens: Math.ceil(turn.skillSection.length / 4) }]);
  });

  it("takes budget and pinned names from the recipe; 0 turns the catalog and the tool off", async () => {
    // Prepare
    const h = await withSkills();
    await h.putFile("_vance/recipes/pinned.yaml", "engine: ford\ncatalogPinned: [needs-arg]\ncatalogBudgetChars: 120\n");
    await h.putFile("_vance/recipes/nocatalog.yaml", "engine: ford\ncatalogBudgetChars: 0\n");
    const pinned = await h.spawn("pinned");
    const off = await h.spawn("nocatalog");

    // Act
    const small = turnOf((await h.compose(pinned.processId, "hi")).result);
    const none = turnOf((await h.compose(off.processId, "hi")).result);

    // Assess
    expect(small.catalog.entries[0]!.name).toBe("needs-arg");
    expect(small.catalog.omitted.length).toBeGreaterThan(0);
    expect([...small.catalog.entries.map((e) => e.name), ...small.catalog.omitted].sort()).toEqual([
      "alpha",
      "beta",
      "model-only",
      "needs-arg",
    ]);
    expect(small.catalog.usedChars).toBeLessThanOrEqual(120);
    expect(none.catalog).toEqual({ entries: [], omitted: [], omittedCount: 0, budgetChars: 0, usedChars: 0, approxTokens: 0 });
    expect(none.tools).not.toContain(SKILL_ACTIVATE_TOOL);
  });

  it("never lets a skill grant a service tool: tools: [skill_activate] leaves the catalog's tool off in a recipe without a catalog", async () => {
    // Prepare
    const h = await withSkills();
    await h.putFile("_vance/recipes/bare.yaml", "engine: ford\ncatalogBudgetChars: 0\nallowedToolsRemove: [manual_read, manual_list]\n");
    await h.putSkill("granter", {
      description: "Grants itself the service's tools",
      body: "Granter body.",
      extra:
        "tools: [skill_activate, skill_search, skill_read_file, skill_reference_doc, manual_read, manual_list, own_tool]\nallowed-tools: skill_activate Read",
    });
    const off = await h.spawn("bare");
    await h.activate(off.processId, "granter");

    // Act
    const turn = turnOf((await h.compose(off.processId, "hi")).result);

    // Assess
    expect(turn.catalog.entries).toEqual([]);
    expect(turn.tools).toEqual(["file_read", "file_list", "web_search", "own_tool", "Read"]);
    expect(turn.tools).not.toContain(SKILL_ACTIVATE_TOOL);
    expect(turn.toolSpecs.map((spec) => spec.name)).not.toContain(SKILL_ACTIVATE_TOOL);
  });

  it("keeps the recipe whitelist: a skill the recipe does not allow is no candidate", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("whitelist");

    // Act
    const turn = turnOf((await h.compose(p.processId)).result);

    // Assess
    expect(turn.catalog.entries.map((e) => e.name)).toEqual(["beta"]);
  });
});

describe("skill_activate", () => {
  it("activates through the lane with activatedBy model and answers the skill's block; the next turn carries its body, not its catalog entry", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("open");

    // Act
    const answer = await modelActivate(h, p.processId, "beta");
    const next = turnOf((await h.compose(p.processId, "go on")).result);

    // Assess
    expect(answer.activeSkills).toEqual([
      expect.objectContaining({ name: "beta", activatedBy: "model", oneShot: false, fromRecipe: false }),
    ]);
    expect(answer.turnScheduled).toBe(false);
    expect(answer.skill).toEqual({ name: "beta", content: "--- Skill: beta ---\nBeta skill\n\nBeta body." });
    expect(h.applied.map((a) => a.message.kind)).toContain("skill.activate");
    expect((await h.process(p.processId)).activeSkills[0]!.activatedBy).toBe("model");
    expect(next.skillSection).toContain("Beta body.");
    expect(next.catalog.entries.map((e) => e.name)).not.toContain("beta");
    expect(next.activeSkills).toEqual([expect.objectContaining({ name: "beta", activatedBy: "model" })]);
  });

  it("lets the model activate a user-invocable: false skill, with its arguments bound like ACTIVATE", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("open");

    // Act
    const hidden = await modelActivate(h, p.processId, "model-only");
    const withArg = await modelActivate(h, p.processId, "needs-arg", "src/api");

    // Assess
    expect(hidden.skill.content).toContain("Hidden body.");
    expect(withArg.skill.content).toContain("Target: src/api");
    expect(withArg.activeSkills.map((s) => [s.name, s.activatedBy])).toEqual([
      ["model-only", "model"],
      ["needs-arg", "model"],
    ]);
  });

  it("answers ACTIVATE's errors: unknown, disable-model-invocation, not allowed, missing argument", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("open");
    const narrow = await h.spawn("narrow");

    // Act
    const outcomes: PromiseSettledResult<ModelActivationResult>[] = [];
    for (const [processId, name] of [
      [p.processId, "nope"],
      [p.processId, "user-only"],
      [narrow.processId, "beta"],
      [p.processId, "needs-arg"],
    ] as const) {
      outcomes.push(...(await Promise.allSettled([modelActivate(h, processId, name)])));
    }

    // Assess
    const codes = outcomes.map((o) => (o.status === "rejected" ? (o.reason as { code?: string }).code : "fulfilled"));
    expect(codes).toEqual(["SKILL_NOT_FOUND", "SKILL_NOT_ALLOWED", "SKILL_NOT_ALLOWED", "SKILL_ARGUMENT_MISSING"]);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toContain("disable-model-invocation");
    expect((await h.process(p.processId)).activeSkills).toEqual([]);
  });

  it("leaves explicit activation's flags as they were: a user may not activate a user-invocable: false skill", async () => {
    // Prepare
    const h = await withSkills();
    const p = await h.spawn("open");

    // Act
    const record = await h.activate(p.processId, "model-only");
    const userOnly = await h.activate(p.processId, "user-only");

    // Assess
    expect(record).toMatchObject({ status: "FAILED", error: { code: "SKILL_NOT_ALLOWED" } });
    expect(userOnly.status).toBe("DONE");
  });
});

describe("skill_activate under load", () => {
  it("applies 50 concurrent calls on one process in lane order: each skill once, every bad name refused, nothing lost", async () => {
    // Prepare
    const h = await steeringHarness();
    const good = Array.from({ length: 10 }, (_, i) => `s-${i}`);
    for (const name of good) await h.putSkill(name, { description: `Skill ${name}`, body: `Body ${name}.` });
    const p = await h.spawn("open");
    const calls = Array.from({ length: 50 }, (_, i) => (i % 7 === 6 ? `missing-${i}` : good[i % 10]!));

    // Act
    const outcomes = await Promise.allSettled(calls.map((name) => modelActivate(h, p.processId, name)));

    // Assess
    outcomes.forEach((outcome, i) => {
      if (calls[i]!.startsWith("missing-"))
        expect(outcome.status === "rejected" && (outcome.reason as { code?: string }).code).toBe("SKILL_NOT_FOUND");
      else expect(outcome.status === "fulfilled" && outcome.value.skill.content).toContain(`Body ${calls[i]}.`);
    });
    const activates = h.applied.filter((a) => a.message.kind === "skill.activate");
    expect(new Set(activates.map((a) => a.message.requestId)).size).toBe(50);
    const firstApplied = [
      ...new Set(activates.filter((a) => a.record.status === "DONE").map((a) => (a.message.payload as { skillName: string }).skillName)),
    ];
    const stored = (await h.process(p.processId)).activeSkills;
    expect(stored.map((s) => s.name)).toEqual(firstApplied);
    expect([...stored.map((s) => s.name)].sort()).toEqual([...good].sort());
    expect(stored.every((s) => s.activatedBy === "model")).toBe(true);
  });
});

describe("activatedBy per path", () => {
  it("records explicit, trigger, recipe and spawn activations", async () => {
    // Prepare
    const h = await withSkills();
    await h.putSkill("gamma", { description: "Gamma", extra: "triggers:\n  - type: KEYWORDS\n    keywords: [gamma]" });
    await h.putSkill("review", {
      description: "Review",
      extra: "arguments: true\nrun:\n  target: spawn\n  recipe: plain\naction: Review now.",
    });
    const p = await h.spawn("whitelist");
    const other = await h.spawn("open");

    // Act
    await h.activate(p.processId, "beta");
    await h.compose(p.processId, "about gamma please");
    const record = await h.activate(other.processId, "review", { args: "x" });
    expect(record.error).toBeUndefined();
    const spawned = record.result as { spawned: { processId: string } };

    // Assess
    const refs = (await h.process(p.processId)).activeSkills.map((s) => [s.name, s.activatedBy]);
    expect(refs).toEqual([
      ["alpha", "recipe"],
      ["beta", "explicit"],
      ["gamma", "trigger"],
    ]);
    const child = await h.process(spawned.spawned.processId);
    expect(child.activeSkills.map((s) => [s.name, s.activatedBy])).toEqual([["review", "spawn"]]);
  });

  it("derives activatedBy for a stored item written before the field existed", () => {
    // Prepare
    const old = { name: "x", resolvedFromScope: "VANCE", oneShot: false, activatedAt: "2025-01-01T00:00:00.000Z", args: null };

    // Act
    const fromRecipe = ActiveSkillRef.parse({ ...old, fromRecipe: true });
    const explicit = ActiveSkillRef.parse({ ...old, fromRecipe: false });
    const kept = ActiveSkillRef.parse({ ...old, fromRecipe: false, activatedBy: "trigger" });

    // Assess
    expect([fromRecipe.activatedBy, explicit.activatedBy, kept.activatedBy]).toEqual(["recipe", "explicit", "trigger"]);
  });
});
