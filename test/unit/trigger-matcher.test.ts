import { describe, expect, it } from "vitest";
import { resolvedSkill, syntheticMessage, syntheticSkills } from "../../bench/compose-bench-helpers.js";
import type { ResolvedSkill } from "../../shared/skills/resolved-skill.js";
import type { SkillTrigger } from "../../shared/skills/skill-frontmatter.js";
import { MAX_TRIGGER_INPUT_LENGTH } from "../../shared/skills/triggers/skill-trigger-index.js";
import { SkillTriggerMatcher, tokenize, triggerCandidates } from "../../shared/skills/triggers/skill-trigger-matcher.js";
import { TriggerPatternCache, checkTriggerPattern } from "../../shared/skills/triggers/skill-trigger-pattern.js";
import { TriggerTimeBudget } from "../../shared/skills/triggers/trigger-time-budget.js";

const keywords = (...words: string[]): SkillTrigger => ({ type: "KEYWORDS", keywords: words });
const pattern = (text: string): SkillTrigger => ({ type: "PATTERN", pattern: text });

function matches(trigger: SkillTrigger, input: string): boolean {
  return new SkillTriggerMatcher(new TriggerPatternCache()).match([{ name: "s", triggers: [trigger] }], input).length === 1;
}

describe("tokenize", () => {
  it("splits lowercased text on [^a-z0-9]+ and keeps tokens of at least 2 characters", () => {
    // Act
    const tokens = tokenize("a pull-request #42, x über_c3po");

    // Assess
    expect(tokens).toEqual(["pull", "request", "42", "ber", "c3po"]);
  });
});

describe("SkillTriggerMatcher: KEYWORDS", () => {
  const codeReview = keywords("review", "diff", "PR", "pull request");

  it("fires when at least half of the keywords occur", () => {
    // Assess
    expect(matches(codeReview, "Can you review the pull request?")).toBe(true); // 2 of 4
    expect(matches(codeReview, "PR diff please")).toBe(true); // 2 of 4
    expect(matches(codeReview, "please review this")).toBe(false); // 1 of 4
  });

  it("rounds the half up for an odd number of keywords", () => {
    // Prepare
    const three = keywords("alpha", "beta", "gamma");

    // Assess
    expect(matches(three, "alpha only")).toBe(false); // 1 of 3 < 50%
    expect(matches(three, "alpha and gamma")).toBe(true); // 2 of 3
    expect(matches(keywords("deploy"), "deploy now")).toBe(true); // 1 of 1
  });

  it("matches whole tokens only", () => {
    // Prepare
    const trigger = keywords("review", "pr");

    // Assess
    expect(matches(trigger, "the reviewer printed it")).toBe(false);
    expect(matches(trigger, "review:pr")).toBe(true);
  });

  it("is case-insensitive on both sides", () => {
    // Assess
    expect(matches(keywords("PR", "Diff"), "my pr")).toBe(true);
    expect(matches(keywords("deploy"), "DEPLOY IT")).toBe(true);
  });

  it("never matches keywords shorter than 2 characters, but counts them", () => {
    // Assess
    expect(matches(keywords("c"), "I like c a lot")).toBe(false);
    expect(matches(keywords("c", "go"), "c and go")).toBe(true); // go: 1 of 2
    expect(matches(keywords("c", "x", "go"), "c x go")).toBe(false); // 1 of 3
  });

  it("treats a multi-word keyword as consecutive tokens", () => {
    // Prepare
    const trigger = keywords("pull request");

    // Assess
    expect(matches(trigger, "open a Pull-Request")).toBe(true);
    expect(matches(trigger, "pull the request")).toBe(false);
    expect(matches(trigger, "request pull")).toBe(false);
    expect(matches(trigger, "pull pull request")).toBe(true);
  });
});

describe("SkillTriggerMatcher: PATTERN", () => {
  it("finds the pattern anywhere in the lowercased input", () => {
    // Assess
    expect(matches(pattern("schau.*(diff|PR|änderung)"), "Kannst du mal SCHAUEN, ob der PR passt?")).toBe(true);
    expect(matches(pattern("deploy(ment)? to (prod|staging)"), "start the Deployment to PROD")).toBe(true);
    expect(matches(pattern("deploy(ment)? to (prod|staging)"), "deploy to dev")).toBe(false);
  });

  it("skips a pattern that does not compile instead of throwing", () => {
    // Prepare
    const matcher = new SkillTriggerMatcher(new TriggerPatternCache());
    const skills = [
      { name: "broken", triggers: [pattern("foo(?=bar)")] },
      { name: "fine", triggers: [pattern("foo")] },
    ];

    // Act
    const names = matcher.match(skills, "foobar");

    // Assess
    expect(names).toEqual(["fine"]);
  });

  it("terminates on a catastrophic pattern over a long message", () => {
    // Prepare
    const started = performance.now();

    // Act
    // Stays under MAX_TRIGGER_INPUT_LENGTH: past it the cut would become the end of the text.
    const fired = matches(pattern("(a+)+$"), `${"a".repeat(MAX_TRIGGER_INPUT_LENGTH - 10)}!`);

    // Assess
    expect(fired).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe("SkillTriggerMatcher.match", () => {
  it("returns every skill with any firing trigger, in candidate order", () => {
    // Prepare
    const matcher = new SkillTriggerMatcher(new TriggerPatternCache());
    const skills = [
      resolvedSkill({ name: "zeta", triggers: [keywords("nothing"), pattern("deploy")] }),
      resolvedSkill({ name: "alpha", triggers: [keywords("deploy")] }),
      resolvedSkill({ name: "mid", triggers: [keywords("other")] }),
    ];

    // Act
    const names = matcher.match(skills, "Deploy it");

    // Assess
    expect(names).toEqual(["zeta", "alpha"]);
  });

  it("runs over many synthetic skills whose patterns are all valid", () => {
    // Prepare
    const skills = syntheticSkills(300);
    const patterns = skills.flatMap((skill) => skill.triggers.flatMap((t) => (t.type === "PATTERN" ? [t.pattern] : [])));
    const own = skills[17]?.triggers.find((t) => t.type === "KEYWORDS");
    const matcher = new SkillTriggerMatcher(new TriggerPatternCache());

    // Act
    const names = matcher.match(skills, `${syntheticMessage(2048)} ${own?.type === "KEYWORDS" ? own.keywords.join(" ") : ""}`);

    // Assess
    expect(patterns.filter((p) => checkTriggerPattern(p) !== undefined)).toEqual([]);
    expect(names).toEqual(["skill-17"]);
  });
});

describe("triggerCandidates", () => {
  const skills = [
    resolvedSkill({ name: "on", triggers: [keywords("a1")] }),
    resolvedSkill({ name: "off", enabled: false, triggers: [keywords("a1")] }),
    resolvedSkill({ name: "silent", triggers: [] }),
    resolvedSkill({ name: "active", triggers: [keywords("a1")] }),
    resolvedSkill({ name: "other", triggers: [keywords("a1")] }),
  ];

  it("keeps enabled skills with triggers that are not active", () => {
    // Act
    const names = triggerCandidates(skills, { activeNames: ["active"] }).map((s) => s.name);

    // Assess
    expect(names).toEqual(["on", "other"]);
  });

  it("applies the recipe whitelist: null means no restriction, [] means lockdown", () => {
    // Assess
    expect(triggerCandidates(skills, { activeNames: [], allowedSkills: null }).map((s) => s.name)).toEqual(["on", "active", "other"]);
    expect(triggerCandidates(skills, { activeNames: [], allowedSkills: [] })).toEqual([]);
    expect(triggerCandidates(skills, { activeNames: [], allowedSkills: ["other", "off"] }).map((s) => s.name)).toEqual(["other"]);
  });
});

describe("SkillTriggerMatcher.triggered", () => {
  const spawnOnly = (skill: ResolvedSkill): boolean => skill.run.target !== "spawn";
  const listing = Object.freeze([
    resolvedSkill({ name: "on", triggers: [keywords("a1")] }),
    resolvedSkill({ name: "off", enabled: false, triggers: [keywords("a1")] }),
    resolvedSkill({ name: "silent", triggers: [] }),
    resolvedSkill({ name: "active", triggers: [keywords("a1")] }),
    resolvedSkill({ name: "spawner", run: { target: "spawn" }, triggers: [keywords("a1")] }),
    resolvedSkill({ name: "other", triggers: [pattern("a1")] }),
    resolvedSkill({ name: "quiet", triggers: [keywords("zz")] }),
  ]);

  it("applies the candidate filter, `eligible`, the active skills and the whitelist, in listing order", () => {
    // Prepare
    const matcher = new SkillTriggerMatcher(new TriggerPatternCache());

    // Act
    const open = matcher.triggered(listing, "a1 now", { activeNames: ["active"], allowedSkills: null, eligible: spawnOnly }).fired;
    const noEligible = matcher.triggered(listing, "a1 now", { activeNames: [] }).fired;
    const whitelisted = matcher.triggered(listing, "a1 now", {
      activeNames: [],
      allowedSkills: ["other", "off", "spawner"],
      eligible: spawnOnly,
    }).fired;
    const lockdown = matcher.triggered(listing, "a1 now", { activeNames: [], allowedSkills: [], eligible: spawnOnly }).fired;

    // Assess
    expect(open.map((s) => s.name)).toEqual(["on", "other"]);
    expect(open[0]).toBe(listing[0]);
    expect(noEligible.map((s) => s.name)).toEqual(["on", "active", "spawner", "other"]);
    expect(whitelisted.map((s) => s.name)).toEqual(["other"]);
    expect(lockdown).toEqual([]);
  });

  it("answers what filtering and matching one by one answer, over 1 000 synthetic skills", () => {
    // Prepare
    const skills = Object.freeze(
      syntheticSkills(1000).map((s, i) =>
        i % 7 === 0 ? { ...s, enabled: false } : i % 11 === 0 ? { ...s, run: { target: "spawn" as const } } : s,
      ),
    );
    const matcher = new SkillTriggerMatcher(new TriggerPatternCache());
    const oracle = new SkillTriggerMatcher(new TriggerPatternCache());
    const messages = Array.from(
      { length: 20 },
      (_, i) => `${syntheticMessage(600, i + 1)} kw${i * 37} alt${i * 37} 12ab34 ${skills[i * 41]?.name}`,
    );

    // Act
    const outcomes = messages.map((message, i) => {
      const activeNames = skills.filter((_, k) => k % (13 + i) === 0).map((s) => s.name);
      const allowedSkills = i % 3 === 0 ? skills.filter((_, k) => k % 2 === 0).map((s) => s.name) : null;
      const expected = oracle.match(triggerCandidates(skills, { activeNames, allowedSkills }).filter(spawnOnly), message);
      const got = matcher.triggered(skills, message, { activeNames, allowedSkills, eligible: spawnOnly }).fired.map((s) => s.name);
      return { got, expected };
    });

    // Assess
    for (const { got, expected } of outcomes) expect(got).toEqual(expected);
    expect(outcomes.some(({ expected }) => expected.length > 0)).toBe(true);
  });

  it("sees a changed array that is not frozen, and trusts a frozen one it indexed", () => {
    // Prepare
    const matcher = new SkillTriggerMatcher(new TriggerPatternCache());
    const mutable = [...listing];
    const before = matcher.triggered(mutable, "a1 zz", { activeNames: [] }).fired.map((s) => s.name);

    // Act
    mutable.splice(0, 1);
    const after = matcher.triggered(mutable, "a1 zz", { activeNames: [] }).fired.map((s) => s.name);
    const frozenIndex = matcher.indexFor(listing);

    // Assess
    expect(before).toEqual(["on", "active", "spawner", "other", "quiet"]);
    expect(after).toEqual(["active", "spawner", "other", "quiet"]);
    expect(matcher.indexFor(listing)).toBe(frozenIndex);
  });
});

describe("SkillTriggerMatcher.triggered under a time budget", () => {
  /** 20 users' worth of skills, 50 distinct literal-less patterns each, and one keyword skill. */
  const hostile = Object.freeze([
    resolvedSkill({ name: "kw", triggers: [keywords("deploy")] }),
    ...Array.from({ length: 20 }, (_, s) =>
      resolvedSkill({
        name: `flood-${s}`,
        triggers: Array.from({ length: 50 }, (_, p) => pattern(`[a-z]{3}\\d{${1 + ((s * 50 + p) % 9)}}[xyz]{${1 + (p % 3)}}`)),
      }),
    ),
  ]);
  const message = `please deploy ${"lorem ipsum 12 dolor ".repeat(1600)}`.slice(0, 32 * 1024);
  /** A clock that moves 1 ms per look: a budget of 0 is spent at the first regex run. */
  const ticking = () => {
    let t = 0;
    return () => t++;
  };

  it("stops running regexes when the budget is spent and names every skill it did not finish; keywords still fire", () => {
    // Prepare
    const matcher = new SkillTriggerMatcher(new TriggerPatternCache());

    // Act
    const result = matcher.triggered(hostile, message, { activeNames: [] }, new TriggerTimeBudget(0, ticking()));

    // Assess
    expect(result.fired.map((s) => s.name)).toEqual(["kw"]);
    expect(result.skipped.map((s) => s.name)).toEqual(Array.from({ length: 20 }, (_, s) => `flood-${s}`));
  });

  it("with time to spare skips nothing and answers as without a budget", () => {
    // Prepare
    const matcher = new SkillTriggerMatcher(new TriggerPatternCache());

    // Act
    const unbudgeted = matcher.triggered(hostile, "abc123x deploy", { activeNames: [] }).fired.map((s) => s.name);
    const budgeted = matcher.triggered(hostile, "abc123x deploy", { activeNames: [] }, new TriggerTimeBudget(60_000));

    // Assess
    expect(budgeted.skipped).toEqual([]);
    expect(budgeted.fired.map((s) => s.name)).toEqual(unbudgeted);
    expect(unbudgeted.length).toBeGreaterThan(1);
  });
});
