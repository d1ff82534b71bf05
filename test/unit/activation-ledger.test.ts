import { describe, expect, it } from "vitest";
import { SkillTriggerMatcher } from "../../shared/skills/triggers/skill-trigger-matcher.js";
import { MAX_MATCH_TEXT_CHARS } from "../../shared/skills/triggers/trigger-match-detail.js";
import { TriggerTimeBudget } from "../../shared/skills/triggers/trigger-time-budget.js";
import { MAX_BLOCKED_ENTRIES } from "../../shared/turns/activation-ledger.js";
import type { ActivationEntry } from "../../shared/turns/activation-ledger.js";
import type { Turn } from "../../shared/turns/turn.js";
import { ALICE, steeringHarness, TENANT } from "../support/steering-harness.js";

const turnOf = (result: unknown): Turn => result as Turn;
const KEYWORDS = (...words: string[]): string => `triggers:\n  - type: KEYWORDS\n    keywords: [${words.join(", ")}]`;
const entryOf = (turn: Turn, name: string): ActivationEntry | undefined => turn.activation.find((e) => e.name === name);

describe("activation ledger: active skills", () => {
  it("says how every active skill got there: recipe default, explicit, this turn's trigger", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha");
    await h.putSkill("beta");
    await h.putSkill("deploy", { extra: KEYWORDS("deploy") });
    const p = await h.spawn("whitelist");
    await h.activate(p.processId, "beta");
    await h.putSkill("gamma", { extra: KEYWORDS("deploy") });

    // Act
    const turn = turnOf((await h.compose(p.processId, "please deploy")).result);

    // Assess
    expect(turn.activation.slice(0, 3)).toEqual([
      { name: "alpha", outcome: "active", activatedBy: "recipe" },
      { name: "beta", outcome: "active", activatedBy: "explicit" },
      { name: "gamma", outcome: "activated", activatedBy: "trigger", trigger: { type: "KEYWORDS", index: 0, keywords: ["deploy"] } },
    ]);
  });

  it("names the trigger that matched by its place in the skill's list, with the regex match", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("release", {
      extra: "triggers:\n  - type: KEYWORDS\n    keywords: [rollback, hotfix]\n  - type: PATTERN\n    pattern: 'ship (v\\d+)'",
    });
    const p = await h.spawn("open");

    // Act
    const turn = turnOf((await h.compose(p.processId, "Please SHIP v42 today")).result);

    // Assess
    expect(entryOf(turn, "release")).toEqual({
      name: "release",
      outcome: "activated",
      activatedBy: "trigger",
      trigger: { type: "PATTERN", index: 1, match: "SHIP v42" },
    });
  });

  it("caps the match text and lists only the keywords hit", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("long", { extra: "triggers:\n  - type: PATTERN\n    pattern: 'x{10}x*'" });
    await h.putSkill("words", { extra: KEYWORDS("alpha", "beta", "gamma", "delta") });
    const p = await h.spawn("open");

    // Act
    const turn = turnOf((await h.compose(p.processId, `${"x".repeat(1000)} beta delta`)).result);

    // Assess
    expect(entryOf(turn, "long")?.trigger?.match).toBe("x".repeat(MAX_MATCH_TEXT_CHARS));
    expect(entryOf(turn, "words")?.trigger).toEqual({ type: "KEYWORDS", index: 0, keywords: ["beta", "delta"] });
  });

  it("keeps the ledger of what the write applied, in the Turn and in the stored record alike", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("deploy", { extra: KEYWORDS("deploy") });
    const p = await h.spawn("open");

    // Act
    const record = await h.compose(p.processId, "deploy");
    const stored = await h.app.getTurn(TENANT, p.processId, turnOf(record.result).turnId);

    // Assess
    expect(turnOf(record.result).activation).toEqual([expect.objectContaining({ name: "deploy", outcome: "activated" })]);
    expect(stored).toEqual(record.result);
  });
});

describe("activation ledger: blocked triggers", () => {
  it("reports a matching skill outside the recipe's allowedSkills as not-allowed, and does not activate it", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha");
    await h.putSkill("beta", { extra: KEYWORDS("deploy") });
    const p = await h.spawn("narrow");

    // Act
    const turn = turnOf((await h.compose(p.processId, "deploy now")).result);

    // Assess
    expect(turn.activeSkills).toEqual([]);
    expect(turn.activation).toEqual([
      { name: "beta", outcome: "blocked", reason: "not-allowed", trigger: { type: "KEYWORDS", index: 0, keywords: ["deploy"] } },
    ]);
  });

  it("keeps an active skill whose trigger matches again as one active entry with reason already-active", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("deploy", { extra: KEYWORDS("deploy") });
    const p = await h.spawn("open");
    await h.activate(p.processId, "deploy");

    // Act
    const turn = turnOf((await h.compose(p.processId, "deploy")).result);

    // Assess
    expect(turn.activation).toEqual([
      {
        name: "deploy",
        outcome: "active",
        activatedBy: "explicit",
        reason: "already-active",
        trigger: { type: "KEYWORDS", index: 0, keywords: ["deploy"] },
      },
    ]);
  });

  it("says why a skill the hook never triggers was left out: a required argument, a spawn, a shot", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("needs-arg", { extra: `${KEYWORDS("deploy")}\narguments:\n  - name: target\n    required: true` });
    await h.putSkill("spawner", { extra: `${KEYWORDS("deploy")}\nrun:\n  target: spawn\n  recipe: open\naction: Go.` });
    await h.putSkill("macro", { extra: `${KEYWORDS("deploy")}\nlifecycle: shot` });
    const p = await h.spawn("open");

    // Act
    const turn = turnOf((await h.compose(p.processId, "deploy")).result);

    // Assess
    expect(turn.activeSkills).toEqual([]);
    expect(turn.activation.map((e) => [e.name, e.outcome, e.reason])).toEqual([
      ["macro", "blocked", "shot"],
      ["needs-arg", "blocked", "argument-missing"],
      ["spawner", "blocked", "spawn-only"],
    ]);
  });

  it("reports a matched skill whose activate: commands fail as activate-failed, with its trigger", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("rocket", { extra: `${KEYWORDS("launch")}\nactivate:\n  - launch rockets` });
    const p = await h.spawn("open");

    // Act
    const turn = turnOf((await h.compose(p.processId, "launch")).result);

    // Assess
    expect(turn.activeSkills).toEqual([]);
    expect(turn.activation).toEqual([
      { name: "rocket", outcome: "blocked", reason: "activate-failed", trigger: { type: "KEYWORDS", index: 0, keywords: ["launch"] } },
    ]);
  });

  it("reports pattern triggers the time budget kept from running as time-budget", async () => {
    // Prepare
    let now = 0;
    const h = await steeringHarness({ triggerBudget: () => new TriggerTimeBudget(0, () => (now += 10)) });
    await h.putSkill("slow", { extra: "triggers:\n  - type: PATTERN\n    pattern: 'dep[a-z]+y'" });
    const p = await h.spawn("open");

    // Act
    const turn = turnOf((await h.compose(p.processId, "deploy")).result);

    // Assess
    expect(turn.activation).toEqual([{ name: "slow", outcome: "blocked", reason: "time-budget" }]);
  });

  it("names at most MAX_BLOCKED_ENTRIES blocked skills and says how many there were", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha");
    const count = MAX_BLOCKED_ENTRIES + 5;
    for (let i = 0; i < count; i++) await h.putSkill(`s-${String(i).padStart(3, "0")}`, { extra: KEYWORDS("deploy") });
    const p = await h.spawn("narrow");

    // Act
    const turn = turnOf((await h.compose(p.processId, "deploy")).result);

    // Assess
    expect(turn.activation).toHaveLength(MAX_BLOCKED_ENTRIES);
    expect(turn.activation[0]).toMatchObject({ name: "s-000", outcome: "blocked", reason: "not-allowed" });
    expect(turn.warnings).toContain(
      `The activation ledger names ${MAX_BLOCKED_ENTRIES} of ${count} skills whose triggers matched but did not activate`,
    );
  });

  it("reports a disabled candidate in a listing as disabled (the matcher's cause)", () => {
    // Prepare
    const matcher = new SkillTriggerMatcher();
    const listing = [
      { name: "off", enabled: false, triggers: [{ type: "KEYWORDS" as const, keywords: ["deploy"] }] },
      { name: "on", enabled: true, triggers: [{ type: "KEYWORDS" as const, keywords: ["deploy"] }] },
      { name: "quiet", enabled: true, triggers: [{ type: "KEYWORDS" as const, keywords: ["other"] }] },
    ];

    // Act
    const matched = matcher.triggered(listing, "deploy", { activeNames: [], explain: "all" });
    const plain = matcher.triggered(listing, "deploy", { activeNames: [] });

    // Assess
    expect(matched.fired.map((s) => s.name)).toEqual(["on"]);
    expect(matched.blocked).toEqual([{ candidate: listing[0], cause: "disabled" }]);
    expect(matched.notMatched).toEqual([{ candidate: listing[2], evaluated: true }]);
    expect(plain).toEqual({ fired: [listing[1]], skipped: [] });
  });
});

describe("activation ledger: the preview's explain=all", () => {
  it("adds every skill with triggers that did not match, and every catalog candidate left out with its reason, only when asked", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha");
    await h.putSkill("beta", { extra: KEYWORDS("deploy") });
    await h.putSkill("quiet", { extra: KEYWORDS("rollback") });
    await h.putSkill("plain");
    const p = await h.spawn("narrow");
    const process = await h.process(p.processId);

    // Act
    const explained = await h.app.turns.preview(process, "deploy", undefined, ALICE, { explain: "all" });
    const plainPreview = await h.app.turns.preview(process, "deploy", undefined, ALICE);

    // Assess
    expect(explained.activation).toEqual([
      { name: "beta", outcome: "blocked", reason: "not-allowed", trigger: { type: "KEYWORDS", index: 0, keywords: ["deploy"] } },
      { name: "quiet", outcome: "not-matched" },
      // the recipe allows only alpha, which is in the catalog; the rest are left out of it
      { name: "plain", outcome: "not-matched", reason: "not-allowed" },
    ]);
    expect(explained.catalog.entries.map((e) => e.name)).toEqual(["alpha"]);
    expect(plainPreview.activation).toEqual([explained.activation[0]]);
  });
});

describe("stored turns", () => {
  it("finds a turn by its id, also for a requestId that needs encoding, and nothing for unknown ids or another process", async () => {
    // Prepare
    const h = await steeringHarness();
    const p = await h.spawn("open");
    const q = await h.spawn("open");
    const accepted = await h.app.composeTurn(TENANT, p.processId, ALICE, { message: "hi", requestId: "mine/ä ?1" });
    await h.drain();

    // Act
    const found = await h.app.getTurn(TENANT, p.processId, accepted.turnId);
    const elsewhere = await h.app.getTurn(TENANT, q.processId, accepted.turnId);
    const unknown = await h.app.getTurn(TENANT, p.processId, "nope");
    const forged = await h.app.getTurn(TENANT, p.processId, "~bWluZQ=");

    // Assess
    expect(accepted.turnId.startsWith("~")).toBe(true);
    expect(found).toMatchObject({ turnId: accepted.turnId, messages: [expect.objectContaining({ text: "hi" })], activation: [] });
    expect(elsewhere).toBeUndefined();
    expect(unknown).toBeUndefined();
    expect(forged).toBeUndefined();
  });

  it("answers the same turnId for a repeated requestId: the turn the lane actually composed", async () => {
    // Prepare
    const h = await steeringHarness();
    const p = await h.spawn("open");
    const first = await h.app.composeTurn(TENANT, p.processId, ALICE, { message: "hi", requestId: "r-1" });
    await h.drain();

    // Act
    const again = await h.app.composeTurn(TENANT, p.processId, ALICE, { message: "hi", requestId: "r-1" });

    // Assess
    expect(again.turnId).toBe(first.turnId);
    expect(await h.app.getTurn(TENANT, p.processId, again.turnId)).toMatchObject({ turnId: first.turnId });
  });
});

describe("activation ledger: catalog candidates left out (explain=all)", () => {
  it("names model-invocation-disabled and omitted-by-budget skills, and catalog-off when the recipe turns it off", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putFile("_vance/skills/manual/SKILL.md", "---\nname: manual\ndescription: By hand only\ndisable-model-invocation: true\n---\n");
    for (const name of ["a-one", "b-two", "c-three"])
      await h.putFile(`_vance/skills/${name}/SKILL.md`, `---\nname: ${name}\ndescription: ${"x".repeat(120)}\n---\n`);
    await h.putFile("_vance/recipes/tight.yaml", "engine: ford\ncatalogBudgetChars: 300\n");
    await h.putFile("_vance/recipes/off.yaml", "engine: ford\ncatalogBudgetChars: 0\n");
    const tight = await h.process((await h.spawn("tight")).processId);
    const off = await h.process((await h.spawn("off")).processId);

    // Act
    const tightTurn = await h.app.turns.preview(tight, undefined, undefined, ALICE, { explain: "all" });
    const offTurn = await h.app.turns.preview(off, undefined, undefined, ALICE, { explain: "all" });

    // Assess
    const reasons = (turn: typeof tightTurn) => Object.fromEntries(turn.activation.map((e) => [e.name, e.reason]));
    expect(reasons(tightTurn).manual).toBe("model-invocation-disabled");
    const omitted = tightTurn.catalog.omitted;
    expect(omitted.length).toBeGreaterThan(0);
    for (const name of omitted) expect(reasons(tightTurn)[name]).toBe("omitted-by-budget");
    expect(reasons(offTurn)).toMatchObject({ manual: "catalog-off", "a-one": "catalog-off" });
  });
});
