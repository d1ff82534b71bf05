import { RE2JS } from "re2js";
import { syntheticMessage, syntheticSkills } from "../../bench/compose-bench-helpers.js";
import { describe, expect, it } from "vitest";
import { SkillTriggerMatcher } from "../../shared/skills/triggers/skill-trigger-matcher.js";
import { compileTriggerPattern, prepareTriggerInput, TriggerPatternCache } from "../../shared/skills/triggers/skill-trigger-pattern.js";
import { capTriggerInput } from "../../shared/skills/triggers/skill-trigger-index.js";
import { dfaBytesInUse, DfaMemoryLedger, isRe2jsDfa } from "../../shared/skills/triggers/trigger-dfa-memory.js";
import { TriggerTurnBudget } from "../../shared/skills/triggers/trigger-time-budget.js";
import type { Turn } from "../../shared/turns/turn.js";
import { steeringHarness } from "../support/steering-harness.js";
import { skillMd } from "../support/skill-fixtures.js";
import { hostileMessage, hostilePattern, hostileSkills, steppingClock } from "../support/trigger-attack-fixtures.js";

const KIB = 1024;
const MESSAGE = hostileMessage();
const names = (skills: readonly { name: string }[]): string[] => skills.map((s) => s.name);
const noFilter = { activeNames: [] as string[] };

function freshMatcher(options: { perDfaBytes?: number; totalBytes?: number; cacheBytes?: number; budgetMs?: number; sliceMs?: number; stepMs?: number } = {}) {
  const ledger = new DfaMemoryLedger({ perDfaBytes: options.perDfaBytes ?? 64 * KIB, totalBytes: options.totalBytes ?? 1024 * KIB });
  const cache = new TriggerPatternCache({ maxBytes: options.cacheBytes ?? 32 * 1024 * KIB, ledger });
  const clock = steppingClock(options.stepMs ?? 1);
  const matcher = new SkillTriggerMatcher(cache, { budgetMs: options.budgetMs ?? 1_000_000, sliceMs: options.sliceMs ?? 10 }, clock);
  return { ledger, cache, clock, matcher };
}

describe("trigger attack: memory", () => {
  it("caps one pattern's lazy DFA at its budget, where re2js alone lets it grow far past it", () => {
    // Prepare
    const pattern = hostilePattern(120); // the longest run of [a-h] among the fixtures
    const input = prepareTriggerInput(capTriggerInput(MESSAGE));
    const ledger = new DfaMemoryLedger({ perDfaBytes: 64 * KIB, totalBytes: 1024 * KIB });
    const raw = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);

    // Act
    compileTriggerPattern(pattern, new TriggerPatternCache({ ledger })).findUnfiltered(input);
    raw.test(input.lowered);

    // Assess
    const rawDfa: unknown = (raw.re2() as unknown as { dfa: unknown }).dfa;
    expect(isRe2jsDfa(rawDfa)).toBe(true);
    expect(dfaBytesInUse(rawDfa as Parameters<typeof dfaBytesInUse>[0])).toBeGreaterThan(256 * KIB);
    expect(ledger.bytesInUse).toBeGreaterThan(0);
    expect(ledger.bytesInUse).toBeLessThanOrEqual(64 * KIB);
  });

  it("keeps every DFA of the process within the ledger's total while many skills × patterns run on a 32 KB message", () => {
    // Prepare
    const { ledger, matcher } = freshMatcher({ perDfaBytes: 64 * KIB, totalBytes: 512 * KIB });
    const skills = hostileSkills(8, 10);
    let peak = 0;

    // Act
    const fired = matcher.triggered(skills, MESSAGE, noFilter);
    peak = Math.max(peak, ledger.bytesInUse);
    const again = matcher.triggered(skills, `${MESSAGE.slice(7)}abc`, noFilter);
    peak = Math.max(peak, ledger.bytesInUse);

    // Assess
    expect(fired).toEqual([]);
    expect(again).toEqual([]);
    expect(peak).toBeLessThanOrEqual(512 * KIB);
    // 80 patterns ran; the ledger kept states for only as many as fit and cleared the others.
    expect(ledger.dfaCount).toBeLessThan(80);
    expect(ledger.dfaCount).toBeGreaterThan(0);
  });

  it("bounds the pattern cache by bytes, and drops an evicted pattern's DFA states at once", () => {
    // Prepare
    const ledger = new DfaMemoryLedger({ perDfaBytes: 32 * KIB, totalBytes: 64 * 1024 * KIB });
    const cache = new TriggerPatternCache({ maxBytes: 200 * KIB, ledger });
    const input = prepareTriggerInput(MESSAGE.slice(0, 2000));
    let maxCalculated = 0;

    // Act
    for (let i = 0; i < 60; i++) {
      compileTriggerPattern(hostilePattern(i), cache).findUnfiltered(input);
      maxCalculated = Math.max(maxCalculated, cache.calculatedSize);
    }

    // Assess
    expect(maxCalculated).toBeLessThanOrEqual(200 * KIB);
    expect(cache.size).toBeLessThan(60);
    expect(ledger.dfaCount).toBeLessThanOrEqual(cache.size);
  });

  it("answers as before for a pattern the cache evicted while an index still lists it (recompiled on use)", () => {
    // Prepare
    const { cache, matcher } = freshMatcher({ cacheBytes: 40 * KIB });
    const skills = [{ name: "deploy", enabled: true, triggers: [{ type: "PATTERN" as const, pattern: "deploy(ment)? to (prod|staging)" }] }];
    matcher.triggered(skills, "nothing", noFilter);

    // Act
    for (let i = 0; i < 20; i++) compileTriggerPattern(hostilePattern(i), cache);
    const evicted = cache.get("deploy(ment)? to (prod|staging)") === undefined;
    const fired = matcher.triggered(skills, "please deploy to prod", noFilter);

    // Assess
    expect(evicted).toBe(true);
    expect(names(fired)).toEqual(["deploy"]);
  });
});

describe("trigger attack: time", () => {
  it("stops at the turn's budget and names the skills it did not check; what it answers is never wrong", async () => {
    // Prepare
    const skills = [{ name: "aaa-keyword", enabled: true, triggers: [{ type: "KEYWORDS" as const, keywords: ["abc"] }] }, ...hostileSkills(20, 10)];
    const reference = freshMatcher();
    const expected = names(reference.matcher.triggered(skills, `${MESSAGE} abc`, noFilter));
    const { matcher } = freshMatcher({ budgetMs: 30, stepMs: 1 });

    // Act
    const { triggered, skipped } = await matcher.triggeredWithin(skills, `${MESSAGE} abc`, noFilter);

    // Assess
    expect(names(triggered)).toEqual(expected); // the keyword skill; no pattern fires
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped.every((s) => s.name.startsWith("bomb-"))).toBe(true);
    expect(new Set(names(skipped)).size).toBe(skipped.length);
  });

  it("fires nothing it would not fire without a budget, and skips at least every skill it would fire but did not", async () => {
    // Prepare
    const skills = [
      ...hostileSkills(6, 10),
      { name: "digits", enabled: true, triggers: [{ type: "PATTERN" as const, pattern: "[0-9]" }] },
      { name: "letters", enabled: true, triggers: [{ type: "PATTERN" as const, pattern: "h[a-h]{3}g" }] },
    ];
    const expected = new Set(names(freshMatcher().matcher.triggered(skills, MESSAGE, noFilter)));

    for (const budgetMs of [1, 5, 12, 40, 10_000]) {
      // Act
      const { triggered, skipped } = await freshMatcher({ budgetMs }).matcher.triggeredWithin(skills, MESSAGE, noFilter);

      // Assess
      for (const skill of triggered) expect(expected.has(skill.name), `${skill.name} at ${budgetMs} ms`).toBe(true);
      const answered = new Set([...names(triggered), ...names(skipped)]);
      for (const name of expected) expect(answered.has(name), `${name} at ${budgetMs} ms`).toBe(true);
    }
  });

  it("with time to spare answers exactly what the synchronous match answers, over synthetic skills and messages", async () => {
    // Prepare
    const skills = syntheticSkills(300);
    const { matcher } = freshMatcher({ sliceMs: 3, stepMs: 1 });
    const messages = Array.from({ length: 40 }, (_, i) => syntheticMessage(200 + i * 50, i + 3));

    // Act
    const answers = await Promise.all(messages.map((message) => matcher.triggeredWithin(skills, message, noFilter)));

    // Assess
    answers.forEach((answer, i) => {
      expect(names(answer.triggered)).toEqual(names(matcher.triggered(skills, messages[i] as string, noFilter)));
      expect(answer.skipped).toEqual([]);
    });
  });

  it("lets other work of the instance run while a heavy match is under way", async () => {
    // Prepare
    const { matcher, clock } = freshMatcher({ sliceMs: 10, stepMs: 1 });
    const skills = hostileSkills(10, 10);
    const order: string[] = [];
    // Another request: three steps, each waiting for the event loop (as I/O callbacks would).
    const otherRequest = async (): Promise<void> => {
      for (let step = 0; step < 3; step++) await new Promise((resolve) => setImmediate(resolve));
      order.push("other request served");
    };

    // Act
    const matching = matcher.triggeredWithin(skills, MESSAGE, noFilter).then(() => order.push("matching done"));
    const other = otherRequest();
    await Promise.all([matching, other]);

    // Assess
    expect(order).toEqual(["other request served", "matching done"]);
    expect(clock.yields).toBeGreaterThan(3);
  });

  it("compiles a new listing's patterns in slices, so a cold instance's first turn does not hold the event loop either", async () => {
    // Prepare
    const { matcher, clock } = freshMatcher({ sliceMs: 5, stepMs: 1 });
    const skills = hostileSkills(10, 10);
    const order: string[] = [];
    const otherRequest = async (): Promise<void> => {
      for (let step = 0; step < 3; step++) await new Promise((resolve) => setImmediate(resolve));
      order.push("other request served");
    };

    // Act: a message without any of the patterns' literals: no regex runs, only compilation is work.
    const matching = matcher.triggeredWithin(skills, "0123456789 ".repeat(100), noFilter).then((answer) => {
      order.push("matching done");
      return answer;
    });
    const [answer] = await Promise.all([matching, otherRequest()]);

    // Assess
    expect(answer).toEqual({ triggered: [], skipped: [] });
    expect(order).toEqual(["other request served", "matching done"]);
    expect(clock.yields).toBeGreaterThan(3);
  });

  it("gives two turns matching on the same index at once each their own, correct answer", async () => {
    // Prepare
    const skills = [...hostileSkills(4, 10), { name: "prod", enabled: true, triggers: [{ type: "PATTERN" as const, pattern: "deploy(ment)? to (prod|staging)" }] }];
    const { matcher } = freshMatcher({ sliceMs: 2, stepMs: 1 });
    const first = `${MESSAGE.slice(0, 4000)} deploy to prod`;
    const second = MESSAGE.slice(0, 4000);

    // Act
    const [a, b] = await Promise.all([matcher.triggeredWithin(skills, first, noFilter), matcher.triggeredWithin(skills, second, noFilter)]);

    // Assess
    expect(names(a.triggered)).toEqual(["prod"]);
    expect(names(b.triggered)).toEqual([]);
    expect([a.skipped, b.skipped]).toEqual([[], []]);
  });

  it("counts matching time only: time spent waiting for the event loop does not use up the budget", async () => {
    // Prepare
    let now = 0;
    const budget = new TriggerTurnBudget(
      { budgetMs: 10, sliceMs: 2 },
      {
        now: () => (now += 1),
        yieldToLoop: async () => {
          now += 1000; // the instance was busy elsewhere for a second
        },
      },
    );
    let steps = 0;

    // Act
    while (await budget.checkpoint()) steps += 1;

    // Assess
    expect(steps).toBeGreaterThanOrEqual(5);
    expect(budget.spentMs).toBeLessThan(20);
  });
});

describe("trigger attack: the turn", () => {
  it("composes the turn of a member whose _user_ skills hold many PATTERN triggers, with a warning naming the skipped skills", async () => {
    // Prepare
    const { matcher } = freshMatcher({ budgetMs: 25, stepMs: 1 });
    const h = await steeringHarness({ triggerMatcher: matcher });
    for (const skill of hostileSkills(20, 10)) {
      const triggers = skill.triggers.map((t) => `  - type: PATTERN\n    pattern: ${JSON.stringify(t.type === "PATTERN" ? t.pattern : "")}`).join("\n");
      await h.documents.put("acme", "_user_alice", `_vance/skills/${skill.name}/SKILL.md`, skillMd({ extra: `triggers:\n${triggers}` }));
    }
    const p = await h.spawn("open");

    // Act
    const record = await h.compose(p.processId, MESSAGE);

    // Assess
    expect(record.status).toBe("DONE");
    const turn = record.result as Turn;
    expect(turn.activeSkills).toEqual([]);
    const warning = turn.warnings.find((w) => w.includes("were not checked"));
    expect(warning).toMatch(/^Trigger matching used its 25 ms budget for this turn; the PATTERN triggers of \d+ skill\(s\) were not checked/);
    expect(warning).toContain("'bomb-019'");
  });
});
