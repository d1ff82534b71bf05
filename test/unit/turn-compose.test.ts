import { TriggerTimeBudget } from "../../shared/skills/triggers/trigger-time-budget.js";
import { describe, expect, it } from "vitest";
import { engineConfig } from "../../shared/recipes/engines.js";
import type { Turn } from "../../shared/turns/turn.js";
import { ALICE, FakeRenderer, names, steeringHarness, TENANT } from "../support/steering-harness.js";

const FORD = engineConfig("ford")!;
const turnOf = (result: unknown): Turn => result as Turn;
const KEYWORDS = (word: string): string => `triggers:\n  - type: KEYWORDS\n    keywords: [${word}]`;

describe("SkillTurnSupport: compose", () => {
  it("returns exactly the Turn shape of API.md (plus warnings)", async () => {
    // Prepare
    const h = await steeringHarness();
    const p = await h.spawn("open");

    // Act
    const record = await h.compose(p.processId, "hello");

    // Assess
    expect(Object.keys(record.result as object).sort()).toEqual(
      [
        "activation",
        "activeSkills",
        "catalog",
        "manualPaths",
        "messages",
        "skillSection",
        "skillTokens",
        "systemPrompt",
        "toolSpecs",
        "tools",
        "turnId",
        "warnings",
      ].sort(),
    );
    const turn = turnOf(record.result);
    expect(turn.systemPrompt).toEqual([{ role: "system", content: `${FORD.systemPrompt}\n\nOpen prefix.` }]);
    expect(turn.skillSection).toBe("");
    expect(turn.messages).toEqual([expect.objectContaining({ role: "user", sender: "alice", text: "hello", kind: "user" })]);
    expect(turn.warnings).toEqual([]);
  });

  it("puts the skill section in a second system message; OVERWRITE keeps only the recipe prefix", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { description: "Alpha skill", body: "Alpha body." });
    const p = await h.spawn("overwrite");
    await h.activate(p.processId, "alpha");

    // Act
    const turn = turnOf((await h.compose(p.processId)).result);

    // Assess
    expect(turn.skillSection).toBe("--- Skill: alpha ---\nAlpha skill\n\nAlpha body.");
    expect(turn.systemPrompt).toEqual([
      { role: "system", content: "Only the prefix." },
      { role: "system", content: turn.skillSection },
    ]);
  });

  it("uses the engine prompt alone when the recipe has no prefix (APPEND)", async () => {
    // Prepare
    const h = await steeringHarness();
    const p = await h.spawn("plain");

    // Act
    const turn = turnOf((await h.compose(p.processId)).result);

    // Assess
    expect(turn.systemPrompt).toEqual([{ role: "system", content: FORD.systemPrompt }]);
  });

  it("unions tools as (engine ∪ recipe add) \\ recipe remove ∪ skill tools, and lists manual paths recipe first", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { extra: "tools: [git_diff, web_search]\nmanualPaths: [manuals/alpha, manuals/recipe]" });
    const p = await h.spawn("reader");
    await h.activate(p.processId, "alpha");

    // Act
    const turn = turnOf((await h.compose(p.processId)).result);

    // Assess
    expect(turn.tools).toEqual(["file_read", "file_list", "manual_list", "manual_read", "shell_exec", "git_diff", "web_search"]);
    expect(turn.manualPaths).toEqual(["manuals/recipe", "manuals/alpha"]);
    expect(turn.toolSpecs.map((s) => s.name)).toEqual(["manual_list", "manual_read"]);
    expect(turn.toolSpecs[0]).toMatchObject({ description: expect.any(String), inputSchema: { type: "object" } });
  });

  it("advertises skill_reference_doc when an active skill has ON_DEMAND references", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { extra: "referenceDocs:\n  - title: Deep Dive\n    file: references/deep.md\n    loadMode: ON_DEMAND" });
    await h.putFile("_vance/skills/alpha/references/deep.md", "deep");
    const p = await h.spawn("open");
    await h.activate(p.processId, "alpha");

    // Act
    const turn = turnOf((await h.compose(p.processId)).result);

    // Assess
    expect(turn.tools).toContain("skill_reference_doc");
    expect(turn.toolSpecs.map((s) => s.name)).toContain("skill_reference_doc");
    expect(turn.skillSection).toContain("- Deep Dive");
  });

  it("delivers every pending message in exactly one turn, before the user message", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { extra: "action: Kick-off." });
    const p = await h.spawn("open");
    await h.activate(p.processId, "alpha", { args: "with this" });

    // Act
    const first = turnOf((await h.compose(p.processId, "and go")).result);
    const second = turnOf((await h.compose(p.processId, "again")).result);

    // Assess
    expect(first.messages.map((m) => [m.sender, m.text])).toEqual([
      ["_skill", "Kick-off."],
      ["alice", "with this"],
      ["alice", "and go"],
    ]);
    expect(second.messages.map((m) => m.text)).toEqual(["again"]);
    expect((await h.process(p.processId)).pending).toEqual([]);
  });

  it("renders each skill with its own stored args, re-bound per turn", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { extra: "arguments: true", body: "A sees [{{ args.text }}]" });
    await h.putSkill("beta", { extra: "arguments:\n  - name: who", body: "B sees [{{ args.who }}|{{ args.text }}]" });
    const p = await h.spawn("open");
    await h.activate(p.processId, "alpha", { args: "one" });
    await h.activate(p.processId, "beta", { args: "two three" });

    // Act
    const turn = turnOf((await h.compose(p.processId)).result);

    // Assess
    expect(turn.skillSection).toContain("A sees [one]");
    expect(turn.skillSection).toContain("B sees [two three|two three]");
  });

  it("renders bodies with the turn context the engine supplies", async () => {
    // Prepare
    const renderer = new FakeRenderer();
    const h = await steeringHarness({ renderer });
    await h.putSkill("alpha", { body: "Tier {{ tier }} on {{ model }}." });
    const p = await h.spawn("open");
    await h.activate(p.processId, "alpha");

    // Act
    const { requestId } = await h.app.composeTurn(TENANT, p.processId, ALICE, { context: { tier: "deep", model: "m-1" } });
    await h.drain();

    // Assess
    const turn = turnOf((await h.requests.get(TENANT, p.processId, requestId))?.result);
    expect(turn.skillSection).toContain("Tier deep on m-1.");
  });

  it("skips a skill that no longer resolves or no longer binds, with a warning, and composes the rest", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("gone", { extra: "tools: [gone_tool]" });
    await h.putSkill("strict", { extra: "tools: [strict_tool]" });
    await h.putSkill("fine", { body: "Fine body." });
    const p = await h.spawn("open");
    for (const name of ["gone", "strict", "fine"]) await h.activate(p.processId, name);
    await h.documents.delete(TENANT, "_tenant", "_vance/skills/gone/SKILL.md");
    await h.putSkill("strict", { extra: "tools: [strict_tool]\narguments:\n  - name: must\n    required: true" });

    // Act
    const turn = turnOf((await h.compose(p.processId)).result);

    // Assess
    expect(turn.skillSection).toBe("--- Skill: fine ---\nDoes one thing well\n\nFine body.");
    expect(turn.tools).not.toContain("gone_tool");
    expect(turn.tools).not.toContain("strict_tool");
    expect(turn.warnings).toEqual([expect.stringContaining("'gone'"), expect.stringContaining("'strict'")]);
    expect(names(turn)).toEqual(["gone", "strict", "fine"]);
  });

  it("lets a shot skill contribute no tools (it never registers)", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("macro", { extra: "lifecycle: shot\ntools: [macro_tool]", body: "Do it." });
    const p = await h.spawn("open");
    await h.activate(p.processId, "macro");

    // Act
    const turn = turnOf((await h.compose(p.processId)).result);

    // Assess
    expect(turn.tools).not.toContain("macro_tool");
    expect(turn.messages.map((m) => [m.kind, m.text])).toEqual([["shot", "Do it."]]);
  });

  it("refuses to compose a turn, steer or complete on a process that ended: PROCESS_ENDED", async () => {
    // Prepare
    const h = await steeringHarness();
    const p = await h.spawn("open");
    await h.processes.update(TENANT, p.processId, (cur) => ({ ...cur, status: "DONE" }));

    // Act
    const composed = await h.compose(p.processId, "hi");
    const activated = await h.activate(p.processId, "alpha");

    // Assess
    expect(composed).toMatchObject({ status: "FAILED", error: { code: "PROCESS_ENDED" } });
    expect(activated).toMatchObject({ status: "FAILED", error: { code: "PROCESS_ENDED" } });
  });

  it("still answers INVALID_REQUEST for a FAILED process (only DONE is an ended one)", async () => {
    // Prepare
    const h = await steeringHarness();
    const p = await h.spawn("open");
    await h.processes.update(TENANT, p.processId, (cur) => ({ ...cur, status: "FAILED" }));

    // Act
    const record = await h.compose(p.processId, "hi");

    // Assess
    expect(record).toMatchObject({ status: "FAILED", error: { code: "INVALID_REQUEST" } });
  });
});

describe("SkillTurnSupport: trigger pre-turn hook", () => {
  it("activates matching skills oneShot for this turn and records them on the turn in flight", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("deploy", { extra: `${KEYWORDS("deploy")}\nactivate:\n  - status.set deploying`, body: "Deploy rules." });
    await h.putSkill("other", { extra: KEYWORDS("unrelated") });
    const p = await h.spawn("open");

    // Act
    const turn = turnOf((await h.compose(p.processId, "Please deploy the app")).result);

    // Assess
    expect(turn.activeSkills).toEqual([expect.objectContaining({ name: "deploy", oneShot: true, fromRecipe: false, args: null })]);
    expect(turn.skillSection).toContain("Deploy rules.");
    const after = await h.process(p.processId);
    expect(after).toMatchObject({ statusText: "deploying", turn: { turnId: turn.turnId, oneShotSkills: ["deploy"] } });
  });

  it("composes the turn when trigger matching runs out of time, naming the skills whose patterns did not run", async () => {
    // Prepare: a clock that is past the budget at the first regex run
    let t = 0;
    const h = await steeringHarness({ triggerBudget: () => new TriggerTimeBudget(0, () => t++) });
    await h.putSkill("deploy", { extra: KEYWORDS("deploy"), body: "Deploy rules." });
    await h.putSkill("numbers", { extra: "triggers:\n  - type: PATTERN\n    pattern: '[a-z]{3}\\d{2}'" });
    const p = await h.spawn("open");

    // Act
    const turn = turnOf((await h.compose(p.processId, "deploy abc12")).result);

    // Assess: the keyword skill fired, the pattern skill was reported, the turn went on
    expect(turn.activeSkills.map((s) => s.name)).toEqual(["deploy"]);
    expect(turn.warnings).toEqual([expect.stringMatching(/ran out of its 0 ms budget.*'numbers' were not evaluated/)]);
  });

  it("never downgrades an explicit activation (§4c)", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("deploy", { extra: `arguments: true\n${KEYWORDS("deploy")}` });
    const p = await h.spawn("open");
    await h.activate(p.processId, "deploy", { args: "prod" });

    // Act
    const turn = turnOf((await h.compose(p.processId, "deploy now")).result);

    // Assess
    expect(turn.activeSkills).toEqual([expect.objectContaining({ name: "deploy", oneShot: false, args: "prod" })]);
    expect((await h.process(p.processId)).turn?.oneShotSkills).toEqual([]);
  });

  it("never triggers disabled, spawn, shot or argument-requiring skills", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("off", { extra: `${KEYWORDS("deploy")}\nenabled: false` });
    await h.putSkill("spawner", { extra: `${KEYWORDS("deploy")}\nrun:\n  target: spawn\n  recipe: reader\naction: Go.` });
    await h.putSkill("macro", { extra: `${KEYWORDS("deploy")}\nlifecycle: shot` });
    await h.putSkill("needy", { extra: `${KEYWORDS("deploy")}\narguments:\n  - name: env\n    required: true` });
    await h.putSkill("yes", { extra: KEYWORDS("deploy") });
    const p = await h.spawn("open");

    // Act
    const turn = turnOf((await h.compose(p.processId, "deploy")).result);

    // Assess
    expect(names(turn)).toEqual(["yes"]);
    expect((await h.process(p.processId)).children).toEqual([]);
  });

  it("runs no trigger hook without a user message", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("deploy", { extra: KEYWORDS("deploy") });
    await h.putSkill("alpha", { extra: "action: deploy it" });
    const p = await h.spawn("open");
    await h.activate(p.processId, "alpha");

    // Act
    const turn = turnOf((await h.compose(p.processId)).result);

    // Assess
    expect(names(turn)).toEqual(["alpha"]);
  });

  it("skips a triggered skill whose activate: fails, with a warning, and still composes the turn", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("broken", { extra: `${KEYWORDS("deploy")}\nactivate:\n  - nonsense verb` });
    await h.putSkill("good", { extra: KEYWORDS("deploy") });
    const p = await h.spawn("open");

    // Act
    const record = await h.compose(p.processId, "deploy");

    // Assess
    const turn = turnOf(record.result);
    expect(record.status).toBe("DONE");
    expect(names(turn)).toEqual(["good"]);
    expect(turn.warnings).toEqual([expect.stringContaining("'broken'")]);
  });
});

describe("SkillTurnSupport: preview", () => {
  it("composes what the next turn would be, trigger activations included, and changes nothing", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("deploy", { extra: `${KEYWORDS("deploy")}\nactivate:\n  - mode.set ship`, body: "Deploy rules." });
    await h.putSkill("alpha", { extra: "action: Kick-off." });
    const p = await h.spawn("open");
    await h.activate(p.processId, "alpha");
    const before = await h.process(p.processId);

    // Act
    const turn = await h.app.previewTurn(TENANT, p.processId, ALICE, "deploy please");

    // Assess
    expect(names(turn)).toEqual(["alpha", "deploy"]);
    expect(turn.skillSection).toContain("Deploy rules.");
    expect(turn.messages.map((m) => m.text)).toEqual(["Kick-off.", "deploy please"]);
    expect(await h.process(p.processId)).toEqual(before);
  });
});

describe("SkillTurnSupport: size", () => {
  it("refuses a turn too large for its request record before consuming anything", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("huge", { extra: "referenceDocs:\n  - title: Big\n    file: references/big.md" });
    await h.putFile("_vance/skills/huge/references/big.md", "x".repeat(200 * 1024));
    await h.putSkill("alpha", { extra: "action: Kick-off." });
    const p = await h.spawn("open");
    await h.activate(p.processId, "huge");
    await h.activate(p.processId, "alpha");

    // Act
    const record = await h.compose(p.processId, "go");

    // Assess
    expect(record).toMatchObject({ status: "FAILED", error: { code: "PAYLOAD_TOO_LARGE", message: expect.stringContaining("limit") } });
    expect((await h.process(p.processId)).pending.map((m) => m.text)).toEqual(["Kick-off."]);
  });

  it.each([
    ["one huge reference doc", [200 * 1024 * 2]],
    ["several reference docs under the cap each", [120 * 1024, 120 * 1024, 120 * 1024]],
  ])("refuses a composition preview past the same cap with 413 PAYLOAD_TOO_LARGE: %s", async (_label, sizes) => {
    // Prepare
    const h = await steeringHarness();
    const p = await h.spawn("open");
    for (const [index, size] of sizes.entries()) {
      await h.putSkill(`huge${index}`, { extra: "referenceDocs:\n  - title: Big\n    file: references/big.md" });
      await h.putFile(`_vance/skills/huge${index}/references/big.md`, "x".repeat(size));
      await h.activate(p.processId, `huge${index}`);
    }
    const before = await h.process(p.processId);

    // Act
    const preview = h.app.previewTurn(TENANT, p.processId, ALICE, "go");

    // Assess
    await expect(preview).rejects.toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      message: expect.stringMatching(/composition preview .*\(limit 307200\)/),
    });
    expect(await h.process(p.processId)).toEqual(before);
  });

  it("answers a preview under the cap", async () => {
    // Prepare
    const h = await steeringHarness();
    const p = await h.spawn("open");
    await h.putSkill("small", { extra: "referenceDocs:\n  - title: Small\n    file: references/s.md" });
    await h.putFile("_vance/skills/small/references/s.md", "x".repeat(100 * 1024));
    await h.activate(p.processId, "small");

    // Act
    const turn = await h.app.previewTurn(TENANT, p.processId, ALICE, "go");

    // Assess
    expect(turn.activeSkills.map((s) => s.name)).toEqual(["small"]);
  });
});
