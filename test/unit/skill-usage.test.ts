import { describe, expect, it } from "vitest";
import { countRefusal } from "../../shared/app/usage-counting.js";
import { InvalidRequest } from "../../shared/errors.js";
import type { LaneMessage } from "../../shared/lanes/lane-message.js";
import type { Process } from "../../shared/processes/process.js";
import { InMemorySkillUsageStore } from "../../shared/usage/in-memory-skill-usage-store.js";
import { capUsageRows, emptyRow, parseUsageDays } from "../../shared/usage/skill-usage.js";
import type { SkillUsageStore, UsageAnswer, UsageEvent, UsageQuery } from "../../shared/usage/skill-usage.js";
import { ALICE, PROJECT, steeringHarness, TENANT } from "../support/steering-harness.js";

const KEYWORDS = (...words: string[]): string => `triggers:\n  - type: KEYWORDS\n    keywords: [${words.join(", ")}]`;

/** Counts the writes a usage store receives, and can be told to fail them. */
class CountingUsageStore implements SkillUsageStore {
  readonly events: UsageEvent[] = [];
  failing = false;
  private readonly inner = new InMemorySkillUsageStore();
  async count(event: UsageEvent): Promise<void> {
    this.events.push(event);
    if (this.failing) throw new Error("throttled");
    await this.inner.count(event);
  }
  read(query: UsageQuery): Promise<UsageAnswer> {
    return this.inner.read(query);
  }
}

describe("usage counters: one ADD per activation, by path, level and day", () => {
  it("counts a mix of recipe, explicit, trigger and refused activations per skill and level", async () => {
    // Prepare
    const usage = new CountingUsageStore();
    const h = await steeringHarness({ usage });
    await h.putSkill("alpha");
    await h.putSkill("beta", {}, PROJECT);
    await h.putSkill("gamma", { extra: KEYWORDS("deploy") });
    await h.putSkill("delta");
    const p = await h.spawn("whitelist");

    // Act
    await h.activate(p.processId, "beta");
    await h.compose(p.processId, "please deploy");
    const refused = await h.activate(p.processId, "delta");
    const rows = (await h.app.skillUsage(TENANT, PROJECT, 7, ALICE.login)).usage;

    // Assess
    expect(refused.status).toBe("FAILED");
    const day = rows[0]!.day;
    expect(rows).toEqual([
      { name: "alpha", source: "VANCE", day, explicit: 0, trigger: 0, model: 0, recipe: 1, spawn: 0, refused: 0, refusedCodes: {} },
      { name: "beta", source: "PROJECT", day, explicit: 1, trigger: 0, model: 0, recipe: 0, spawn: 0, refused: 0, refusedCodes: {} },
      {
        name: "delta",
        source: null,
        day,
        explicit: 0,
        trigger: 0,
        model: 0,
        recipe: 0,
        spawn: 0,
        refused: 1,
        refusedCodes: { SKILL_NOT_ALLOWED: 1 },
      },
      { name: "gamma", source: "VANCE", day, explicit: 0, trigger: 1, model: 0, recipe: 0, spawn: 0, refused: 0, refusedCodes: {} },
    ]);
    expect(usage.events).toHaveLength(4);
  });

  it("counts the model's skill_activate as model, a worker's first activation as spawn, and each refusal under its code", async () => {
    // Prepare
    const usage = new CountingUsageStore();
    const h = await steeringHarness({ usage });
    await h.putSkill("beta");
    await h.putSkill("spawner", { extra: "run:\n  target: spawn\n  recipe: reader\naction: Go." });
    await h.putSkill("user-only", { extra: "disable-model-invocation: true" });
    const p = await h.spawn("open");

    // Act
    await h.app.enqueue(TENANT, p.processId, ALICE, "skill.activate", { skillName: "beta", activatedBy: "model" });
    await h.app.enqueue(TENANT, p.processId, ALICE, "skill.activate", { skillName: "user-only", activatedBy: "model" });
    await h.drain();
    const spawned = await h.activate(p.processId, "spawner");
    await h.drain();
    const missing = await h.activate(p.processId, "no-such-skill");
    const rows = (await h.app.skillUsage(TENANT, PROJECT, 1, ALICE.login)).usage;

    // Assess
    expect(spawned.status).toBe("DONE");
    expect(missing.error?.code).toBe("SKILL_NOT_FOUND");
    const pick = (name: string) =>
      rows
        .filter((r) => r.name === name)
        .map(({ explicit, trigger, model, recipe, spawn, refused, refusedCodes }) => ({
          explicit,
          trigger,
          model,
          recipe,
          spawn,
          refused,
          refusedCodes,
        }));
    expect(pick("beta")).toEqual([{ explicit: 0, trigger: 0, model: 1, recipe: 0, spawn: 0, refused: 0, refusedCodes: {} }]);
    expect(pick("spawner")).toEqual([{ explicit: 0, trigger: 0, model: 0, recipe: 0, spawn: 1, refused: 0, refusedCodes: {} }]);
    expect(pick("user-only")).toEqual([
      { explicit: 0, trigger: 0, model: 0, recipe: 0, spawn: 0, refused: 1, refusedCodes: { SKILL_NOT_ALLOWED: 1 } },
    ]);
    expect(pick("no-such-skill")).toEqual([
      { explicit: 0, trigger: 0, model: 0, recipe: 0, spawn: 0, refused: 1, refusedCodes: { SKILL_NOT_FOUND: 1 } },
    ]);
  });

  it("counts a refusal for the project the lane message names without reading the process; an older message without it reads the process once", async () => {
    // Prepare
    const usage = new CountingUsageStore();
    const reads: string[] = [];
    const processes = {
      get: async (_tenant: string, processId: string) => (
        reads.push(processId),
        { projectId: "from-store", userId: "owner-from-store" } as Process
      ),
    };
    const deps = { usage, activations: undefined, processes, clock: () => new Date("2026-12-04T10:00:00Z"), logger: { warn: () => {} } };
    const message = (extra: Partial<LaneMessage>): LaneMessage => ({
      requestId: "r1",
      processId: "p1",
      tenant: TENANT,
      user: ALICE,
      kind: "skill.activate",
      payload: { skillName: "deploy" },
      enqueuedAt: "2026-12-04T10:00:00Z",
      ...extra,
    });

    // Act
    await countRefusal(deps, message({ projectId: PROJECT }), "SKILL_NOT_ALLOWED");
    const readsWithProject = reads.length;
    await countRefusal(deps, message({ user: null }), "SKILL_NOT_FOUND");
    await countRefusal(deps, message({ kind: "skill.clear", projectId: PROJECT }), "SKILL_LOCKED");

    // Assess
    expect(readsWithProject).toBe(0);
    expect(reads).toEqual(["p1"]);
    expect(usage.events.map((e) => [e.projectId, e.name, e.source, e.owner, e.counter, e.code])).toEqual([
      [PROJECT, "deploy", null, ALICE.login, "refused", "SKILL_NOT_ALLOWED"],
      ["from-store", "deploy", null, "owner-from-store", "refused", "SKILL_NOT_FOUND"],
    ]);
  });

  it("puts the process's project on every lane message the app enqueues", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("spawner", { extra: "run:\n  target: spawn\n  recipe: reader\naction: Go." });
    const p = await h.spawn("open");

    // Act
    await h.activate(p.processId, "spawner");
    await h.drain();
    await h.compose(p.processId, "hello");

    // Assess
    const kinds = h.applied.map((a) => [a.message.kind, a.message.projectId]);
    expect(kinds).toEqual(
      expect.arrayContaining([
        ["skill.activate", PROJECT],
        ["process.spawnActivate", PROJECT],
        ["turn.compose", PROJECT],
      ]),
    );
    expect(h.applied.every((a) => a.message.projectId === PROJECT || a.message.kind === "process.report")).toBe(true);
  });

  it("counts a triggered skill whose activate: fails as refused under its code, and a turn that only matches a blocked trigger not at all", async () => {
    // Prepare
    const usage = new CountingUsageStore();
    const h = await steeringHarness({ usage });
    await h.putSkill("rocket", { extra: `${KEYWORDS("launch")}\nactivate:\n  - launch rockets` });
    await h.putSkill("needy", { extra: `${KEYWORDS("deploy")}\narguments:\n  - name: env\n    required: true` });
    const p = await h.spawn("open");

    // Act
    const launched = await h.compose(p.processId, "launch");
    const blockedOnly = usage.events.length;
    await h.compose(p.processId, "deploy");

    // Assess
    expect(launched.status).toBe("DONE");
    expect(usage.events.map((e) => [e.name, e.counter, e.code, e.source])).toEqual([["rocket", "refused", "INVALID_REQUEST", "VANCE"]]);
    expect(blockedOnly).toBe(1);
    const [row] = (await h.app.skillUsage(TENANT, PROJECT, 1, ALICE.login, "rocket")).usage;
    expect(row?.refused).toBe(1);
    expect(row?.refusedCodes).toEqual({ INVALID_REQUEST: 1 });
  });

  it("counts a USER skill as its owner's: other members of the project, tenant-admins included, do not see its row", async () => {
    // Prepare
    const h = await steeringHarness({ usage: new InMemorySkillUsageStore() });
    await h.putSkill("diary", {}, "_user_alice");
    await h.putSkill("team", {}, PROJECT);
    const p = await h.spawn("open");

    // Act
    await h.activate(p.processId, "diary");
    await h.activate(p.processId, "team");
    const asAlice = (await h.app.skillUsage(TENANT, PROJECT, 1, "alice")).usage;
    const asBob = (await h.app.skillUsage(TENANT, PROJECT, 1, "bob")).usage;

    // Assess
    expect(asAlice.map((r) => [r.name, r.source, r.explicit])).toEqual([
      ["diary", "USER", 1],
      ["team", "PROJECT", 1],
    ]);
    expect(asBob.map((r) => [r.name, r.source])).toEqual([["team", "PROJECT"]]);
  });

  it("keeps refusals that could name a private skill for the asker alone: a refusal of unknown level, and a USER skill's failed trigger", async () => {
    // Prepare
    const h = await steeringHarness({ usage: new InMemorySkillUsageStore() });
    await h.putSkill("diary", {}, "_user_alice");
    await h.putSkill("secret-rocket", { extra: `${KEYWORDS("launch")}\nactivate:\n  - launch rockets` }, "_user_alice");
    await h.putSkill("team-rocket", { extra: `${KEYWORDS("launch")}\nactivate:\n  - launch rockets` }, PROJECT);
    const narrow = await h.spawn("narrow");
    const open = await h.spawn("open");

    // Act
    const refused = await h.activate(narrow.processId, "diary");
    await h.compose(open.processId, "launch");
    const asAlice = (await h.app.skillUsage(TENANT, PROJECT, 1, "alice")).usage;
    const asBob = (await h.app.skillUsage(TENANT, PROJECT, 1, "bob")).usage;

    // Assess
    expect(refused.error?.code).toBe("SKILL_NOT_ALLOWED");
    expect(asAlice.map((r) => [r.name, r.source, r.refused])).toEqual([
      ["diary", null, 1],
      ["secret-rocket", "USER", 1],
      ["team-rocket", "PROJECT", 1],
    ]);
    expect(asBob.map((r) => [r.name, r.source, r.refused])).toEqual([["team-rocket", "PROJECT", 1]]);
  });

  it("writes nothing for a turn that activates nothing", async () => {
    // Prepare
    const usage = new CountingUsageStore();
    const h = await steeringHarness({ usage });
    await h.putSkill("gamma", { extra: KEYWORDS("deploy") });
    const p = await h.spawn("open");

    // Act
    const turn = await h.compose(p.processId, "nothing to see here");
    await h.compose(p.processId, "still nothing");

    // Assess
    expect(turn.status).toBe("DONE");
    expect(usage.events).toEqual([]);
  });

  it("never fails an activation because its counter cannot be written", async () => {
    // Prepare
    const usage = new CountingUsageStore();
    usage.failing = true;
    const h = await steeringHarness({ usage });
    await h.putSkill("beta");
    const p = await h.spawn("open");

    // Act
    const record = await h.activate(p.processId, "beta");

    // Assess
    expect(record.status).toBe("DONE");
    expect(usage.events.map((e) => [e.name, e.counter])).toEqual([["beta", "explicit"]]);
  });

  it("filters by name and keeps only the days asked for", async () => {
    // Prepare
    const store = new InMemorySkillUsageStore();
    const now = new Date("2025-03-10T12:00:00Z");
    const at = (iso: string): Date => new Date(iso);
    await store.count({
      tenant: TENANT,
      projectId: PROJECT,
      name: "a",
      source: "VANCE",
      counter: "explicit",
      at: at("2025-03-10T01:00:00Z"),
    });
    await store.count({
      tenant: TENANT,
      projectId: PROJECT,
      name: "a",
      source: "VANCE",
      counter: "explicit",
      at: at("2025-03-10T02:00:00Z"),
    });
    await store.count({ tenant: TENANT, projectId: PROJECT, name: "a", source: "VANCE", counter: "model", at: at("2025-03-08T23:59:59Z") });
    await store.count({
      tenant: TENANT,
      projectId: PROJECT,
      name: "b",
      source: "VANCE",
      counter: "trigger",
      at: at("2025-03-10T03:00:00Z"),
    });
    await store.count({
      tenant: TENANT,
      projectId: "other",
      name: "a",
      source: "VANCE",
      counter: "explicit",
      at: at("2025-03-10T03:00:00Z"),
    });

    // Act
    const twoDays = (await store.read({ tenant: TENANT, projectId: PROJECT, days: 2, name: "a", viewer: "alice", now })).usage;
    const threeDays = (await store.read({ tenant: TENANT, projectId: PROJECT, days: 3, name: "a", viewer: "alice", now })).usage;

    // Assess
    expect(twoDays.map((r) => [r.day, r.explicit, r.model])).toEqual([["2025-03-10", 2, 0]]);
    expect(threeDays.map((r) => [r.day, r.explicit, r.model])).toEqual([
      ["2025-03-10", 2, 0],
      ["2025-03-08", 0, 1],
    ]);
  });

  it("cuts a long answer between days: a day that does not fit whole is left out, and only a single overlong day is cut inside", () => {
    // Prepare: read newest day first, names of a day in the order a descending page holds them
    const row = (day: string, name: string) => emptyRow(name, "PROJECT", day);
    const read = [
      row("2025-03-10", "y"),
      row("2025-03-10", "x"),
      row("2025-03-09", "d"),
      row("2025-03-09", "c"),
      row("2025-03-09", "b"),
      row("2025-03-09", "a"),
    ];

    // Act
    const cutInsideSecondDay = capUsageRows(read.slice(0, 4), 3);
    const fits = capUsageRows(read, 6);
    const oneLongDay = capUsageRows(read.slice(2), 3);

    // Assess
    expect(cutInsideSecondDay).toEqual({ usage: [row("2025-03-10", "x"), row("2025-03-10", "y")], truncated: true });
    expect(fits.truncated).toBe(false);
    expect(fits.usage.map((r) => r.name)).toEqual(["x", "y", "a", "b", "c", "d"]);
    expect(oneLongDay).toEqual({ usage: [row("2025-03-09", "b"), row("2025-03-09", "c"), row("2025-03-09", "d")], truncated: true });
  });

  it("accepts 1..400 days and refuses anything else as INVALID_REQUEST", () => {
    // Prepare
    const bad = ["0", "401", "-1", "1.5", "abc", ""];

    // Act
    const parsed = [parseUsageDays(undefined), parseUsageDays("1"), parseUsageDays("400")];

    // Assess
    expect(parsed).toEqual([30, 1, 400]);
    for (const value of bad) expect(() => parseUsageDays(value)).toThrow(InvalidRequest);
  });
});
