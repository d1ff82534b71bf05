import { describe, expect, it } from "vitest";
import { ALICE, BOB, FakeRenderer, names, PROJECT, steeringHarness, TENANT } from "../support/steering-harness.js";

describe("SkillSteerProcessor: ACTIVATE", () => {
  it("appends a fresh skill as an ActiveSkillRef of spec §5d and answers with the active list", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha");
    const p = await h.spawn();

    // Act
    const record = await h.activate(p.processId, "alpha");

    // Assess
    const after = await h.process(p.processId);
    expect(after.activeSkills).toEqual([
      {
        name: "alpha",
        resolvedFromScope: "VANCE",
        oneShot: false,
        fromRecipe: false,
        activatedAt: expect.any(String),
        args: null,
        activatedBy: "explicit",
      },
    ]);
    expect(record).toMatchObject({ status: "DONE", result: { activeSkills: after.activeSkills, turnScheduled: false } });
    expect(after.pending).toEqual([]);
  });

  it("answers SKILL_NOT_FOUND for an unknown skill and changes nothing", async () => {
    // Prepare
    const h = await steeringHarness();
    const p = await h.spawn();

    // Act
    const record = await h.activate(p.processId, "nope");

    // Assess
    expect(record).toMatchObject({ status: "FAILED", error: { code: "SKILL_NOT_FOUND" } });
    expect((await h.process(p.processId)).version).toBe(p.version);
  });

  it("treats a disabled override as not found, even when an outer layer has the skill", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha");
    await h.putSkill("alpha", { extra: "enabled: false" }, PROJECT);
    const p = await h.spawn();

    // Act
    const record = await h.activate(p.processId, "alpha");

    // Assess
    expect(record.error?.code).toBe("SKILL_NOT_FOUND");
    expect((await h.process(p.processId)).activeSkills).toEqual([]);
  });

  it("resolves against the process scope: its user's layer wins over project and tenant", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha");
    await h.putSkill("alpha", { description: "project one" }, PROJECT);
    await h.putSkill("alpha", { description: "alice's own" }, "_user_alice");
    const p = await h.spawn();

    // Act — bob steers alice's process: the cascade is the process's, not the caller's
    await h.activate(p.processId, "alpha", {}, BOB);

    // Assess
    expect((await h.process(p.processId)).activeSkills[0]?.resolvedFromScope).toBe("USER");
  });

  it("fails a missing required argument with SKILL_ARGUMENT_MISSING and changes nothing", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", {
      extra: "arguments:\n  - name: scope\n    required: true\nactivate:\n  - mode.set review\naction: Review {{ args.scope }}",
    });
    const p = await h.spawn();

    // Act
    const record = await h.activate(p.processId, "alpha");

    // Assess
    expect(record).toMatchObject({ status: "FAILED", error: { code: "SKILL_ARGUMENT_MISSING" } });
    const after = await h.process(p.processId);
    expect(after).toMatchObject({ activeSkills: [], pending: [], version: p.version });
    expect(after.mode).toBeUndefined();
  });

  it("stores consumed arguments on the entry and queues no user message (arguments: true)", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { extra: "arguments: true" });
    const p = await h.spawn();

    // Act
    const record = await h.activate(p.processId, "alpha", { args: "src/main check it" });

    // Assess
    const after = await h.process(p.processId);
    expect(after.activeSkills[0]?.args).toBe("src/main check it");
    expect(after.pending).toEqual([]);
    expect(record.result).toMatchObject({ turnScheduled: false });
  });

  it("injects not-consumed arguments as a user message of the caller and schedules a turn (§2b)", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha");
    const p = await h.spawn();

    // Act
    const record = await h.activate(p.processId, "alpha", { args: "  check PR #42 " }, BOB);

    // Assess
    const after = await h.process(p.processId);
    expect(after.activeSkills[0]?.args).toBeNull();
    expect(after.pending).toEqual([expect.objectContaining({ sender: "bob", text: "check PR #42", kind: "args" })]);
    expect(record.result).toMatchObject({ turnScheduled: true });
    expect(h.events.ofType("turnScheduled")).toEqual([
      expect.objectContaining({ tenant: TENANT, processId: p.processId, reason: "args", pending: after.pending }),
    ]);
  });

  it("queues nothing for blank not-consumed arguments", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha");
    const p = await h.spawn();

    // Act
    const record = await h.activate(p.processId, "alpha", { args: "   " });

    // Assess
    expect(record.result).toMatchObject({ turnScheduled: false });
    expect((await h.process(p.processId)).pending).toEqual([]);
  });

  it("runs activate: before rendering action:, so the turn prompt sees the new state (§2a order)", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { extra: "activate:\n  - mode.set review\n  - status.set reviewing\naction: 'Mode is {{ mode }}.'" });
    const p = await h.spawn();

    // Act
    const record = await h.activate(p.processId, "alpha");

    // Assess
    const after = await h.process(p.processId);
    expect(after).toMatchObject({ mode: "review", statusText: "reviewing" });
    expect(after.pending).toEqual([
      expect.objectContaining({
        id: `${record.requestId}#action`,
        sender: "_skill",
        kind: "action",
        text: "Mode is review.",
        skill: "alpha",
      }),
    ]);
    expect(record.result).toMatchObject({ turnScheduled: true });
    expect(h.events.ofType("turnScheduled")[0]?.reason).toBe("action");
  });

  it("renders action: with the skill's args and the process-derived context, without tier/model/provider", async () => {
    // Prepare
    const renderer = new FakeRenderer();
    const h = await steeringHarness({ renderer });
    await h.putSkill("alpha", {
      extra: "arguments:\n  - name: scope\naction: 'Review {{ args.scope }} as {{ recipe }} ({{ params.manualPaths }})'",
    });
    const p = await h.spawn("reader");

    // Act
    await h.activate(p.processId, "alpha", { args: "src/app" });

    // Assess
    expect((await h.process(p.processId)).pending[0]?.text).toBe('Review src/app as reader (["manuals/recipe"])');
    const context = renderer.calls.at(-1)?.context;
    expect(context).toMatchObject({ recipe: "reader", engine: "ford", args: { scope: "src/app", text: "src/app" } });
    expect(context).not.toHaveProperty("tier");
    expect(context).not.toHaveProperty("model");
    expect(context).not.toHaveProperty("provider");
  });

  it("queues the action first and the not-consumed rest of the line after it", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { extra: "action: Start the review." });
    const p = await h.spawn();

    // Act
    await h.activate(p.processId, "alpha", { args: "focus on auth" });

    // Assess
    const pending = (await h.process(p.processId)).pending;
    expect(pending.map((m) => [m.sender, m.kind, m.text])).toEqual([
      ["_skill", "action", "Start the review."],
      ["alice", "args", "focus on auth"],
    ]);
  });

  it("fails the activation on an unknown activate: verb and changes nothing", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { extra: "activate:\n  - mode.set review\n  - launch rockets\naction: Go" });
    const p = await h.spawn();

    // Act
    const record = await h.activate(p.processId, "alpha");

    // Assess
    expect(record).toMatchObject({ status: "FAILED", error: { code: "INVALID_REQUEST", message: expect.stringContaining("launch") } });
    const after = await h.process(p.processId);
    expect(after).toMatchObject({ activeSkills: [], pending: [], version: p.version });
    expect(after.mode).toBeUndefined();
  });

  it("fails with INVALID_DOCUMENT when action: does not render, and changes nothing", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { extra: "action: '{{ fail }}'" });
    const p = await h.spawn();

    // Act
    const record = await h.activate(p.processId, "alpha");

    // Assess
    expect(record.error?.code).toBe("INVALID_DOCUMENT");
    expect((await h.process(p.processId)).version).toBe(p.version);
  });

  it("treats re-activation as a parameter update: args replaced, place kept, no second action:", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { extra: "arguments: true\naction: 'Review {{ args.text }}'" });
    await h.putSkill("beta");
    const p = await h.spawn();
    await h.activate(p.processId, "alpha", { args: "one" });
    await h.activate(p.processId, "beta");
    const before = await h.process(p.processId);

    // Act
    const record = await h.activate(p.processId, "alpha", { args: "two" });

    // Assess
    const after = await h.process(p.processId);
    expect(names(after)).toEqual(["alpha", "beta"]);
    expect(after.activeSkills[0]).toEqual({ ...before.activeSkills[0], args: "two" });
    expect(after.pending.map((m) => m.text)).toEqual(["Review one"]);
    expect(record.result).toMatchObject({ turnScheduled: false });
  });

  it("re-runs the idempotent activate: setters on re-activation (they re-assert the skill's configuration)", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { extra: "activate:\n  - mode.set review" });
    await h.putSkill("beta", { extra: "activate:\n  - mode.set write" });
    const p = await h.spawn();
    await h.activate(p.processId, "alpha");
    await h.activate(p.processId, "beta");

    // Act
    await h.activate(p.processId, "alpha");

    // Assess
    expect((await h.process(p.processId)).mode).toBe("review");
  });

  it("activates with --once as a oneShot entry", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha");
    const p = await h.spawn();

    // Act
    await h.activate(p.processId, "alpha", { oneShot: true });

    // Assess
    expect((await h.process(p.processId)).activeSkills[0]).toMatchObject({ name: "alpha", oneShot: true, fromRecipe: false });
  });

  it("flips an active sticky user skill to oneShot with --once, and back to sticky without it", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha");
    const p = await h.spawn();
    await h.activate(p.processId, "alpha");

    // Act
    await h.activate(p.processId, "alpha", { oneShot: true });
    const flipped = await h.process(p.processId);
    await h.activate(p.processId, "alpha");
    const back = await h.process(p.processId);

    // Assess
    expect(flipped.activeSkills).toEqual([expect.objectContaining({ name: "alpha", oneShot: true })]);
    expect(back.activeSkills).toEqual([expect.objectContaining({ name: "alpha", oneShot: false })]);
  });

  it("keeps a recipe skill's entry sticky and fromRecipe when the user activates it again, also with --once (§7d)", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { extra: "arguments: true" });
    const p = await h.spawn("unlocked");

    // Act
    const record = await h.activate(p.processId, "alpha", { oneShot: true, args: "x" });

    // Assess
    const after = await h.process(p.processId);
    expect(after.activeSkills).toEqual([{ ...p.activeSkills[0], oneShot: false, fromRecipe: true, args: "x", resolvedFromScope: "VANCE" }]);
    expect(record.status).toBe("DONE");
  });

  it("rejects arguments over 64 KB and pending text over 32 KB as INVALID_REQUEST", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha");
    const p = await h.spawn();

    // Act
    const tooLongArgs = h.app.steerSkill(TENANT, p.processId, ALICE, {
      command: "ACTIVATE",
      skillName: "alpha",
      args: "x".repeat(64 * 1024 + 1),
    });
    const tooLongRest = await h.activate(p.processId, "alpha", { args: "y".repeat(33 * 1024) });

    // Assess
    await expect(tooLongArgs).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    expect(tooLongRest).toMatchObject({ status: "FAILED", error: { code: "INVALID_REQUEST" } });
    expect((await h.process(p.processId)).activeSkills).toEqual([]);
  });

  it("refuses a 101st pending message", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha");
    const p = await h.spawn();
    for (let i = 0; i < 100; i++)
      await h.app.steerSkill(TENANT, p.processId, ALICE, { command: "ACTIVATE", skillName: "alpha", args: `m${i}` });
    await h.drain();

    // Act
    const record = await h.activate(p.processId, "alpha", { args: "one too many" });

    // Assess
    expect(record).toMatchObject({ status: "FAILED", error: { code: "INVALID_REQUEST", message: expect.stringContaining("at most 100") } });
    expect((await h.process(p.processId)).pending).toHaveLength(100);
  });

  it("rejects an unknown command or a missing skillName at enqueue", async () => {
    // Prepare
    const h = await steeringHarness();
    const p = await h.spawn();

    // Act
    const unknown = h.app.steerSkill(TENANT, p.processId, ALICE, { command: "EXPLODE" });
    const nameless = h.app.steerSkill(TENANT, p.processId, ALICE, { command: "ACTIVATE" });

    // Assess
    await expect(unknown).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    await expect(nameless).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    expect(h.lane.size).toBe(0);
  });
});

describe("SkillSteerProcessor: lifecycle shot", () => {
  it("never registers, fires activate: and queues the rendered body as the turn prompt", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("macro", {
      extra: "lifecycle: shot\narguments:\n  - name: scope\nactivate:\n  - status.set macro ran\ntools: [shell_exec]",
      body: "Review {{ args.scope }} now.",
    });
    const p = await h.spawn();

    // Act
    const record = await h.activate(p.processId, "macro", { args: "src/api" });

    // Assess
    const after = await h.process(p.processId);
    expect(after.activeSkills).toEqual([]);
    expect(after.statusText).toBe("macro ran");
    expect(after.pending).toEqual([
      expect.objectContaining({ sender: "_skill", kind: "shot", text: "Review src/api now.", skill: "macro" }),
    ]);
    expect(record.result).toEqual({ activeSkills: [], turnScheduled: true });
    expect(h.events.ofType("turnScheduled")[0]?.reason).toBe("shot");
  });

  it("prefers action: over the body as the turn prompt", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("macro", { extra: "lifecycle: shot\naction: The action.", body: "The body." });
    const p = await h.spawn();

    // Act
    await h.activate(p.processId, "macro");

    // Assess
    expect((await h.process(p.processId)).pending.map((m) => m.text)).toEqual(["The action."]);
  });

  it("is a pure configuration macro without body and action: no turn", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("guarded", { extra: "lifecycle: shot\nactivate:\n  - guard inline return 1;", body: "" });
    const p = await h.spawn();

    // Act
    const record = await h.activate(p.processId, "guarded");

    // Assess
    const after = await h.process(p.processId);
    expect(after).toMatchObject({ activeSkills: [], pending: [], guard: { type: "inline", source: "return 1;" } });
    expect(record.result).toMatchObject({ turnScheduled: false });
  });

  it("fires again on every activation", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("macro", { extra: "lifecycle: shot", body: "Do it." });
    const p = await h.spawn();

    // Act
    await h.activate(p.processId, "macro");
    await h.activate(p.processId, "macro");

    // Assess
    expect((await h.process(p.processId)).pending.map((m) => m.text)).toEqual(["Do it.", "Do it."]);
  });
});
