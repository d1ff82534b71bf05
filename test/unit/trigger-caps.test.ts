import { describe, expect, it } from "vitest";
import { resolvedSkill } from "../../bench/compose-bench-helpers.js";
import type { SkillTrigger } from "../../shared/skills/skill-frontmatter.js";
import { MAX_PATTERN_TRIGGERS_PER_LEVEL, capPatternTriggers } from "../../shared/skills/triggers/trigger-caps.js";

const patterns = (n: number, seed: string): SkillTrigger[] =>
  Array.from({ length: n }, (_, i) => ({ type: "PATTERN", pattern: `${seed}-${i}` }));
const words: SkillTrigger = { type: "KEYWORDS", keywords: ["deploy"] };

describe("capPatternTriggers: levels written past the API", () => {
  it("keeps patterns in listing order up to each level's cap, drops the rest with their names, keeps keyword triggers", () => {
    // Prepare: 6 user skills of 20 patterns (120 > 100), a project skill, a bundled one
    const listing = Object.freeze([
      ...Array.from({ length: 6 }, (_, s) => resolvedSkill({ name: `u${s}`, source: "USER", triggers: [...patterns(20, `u${s}`), words] })),
      resolvedSkill({ name: "p", source: "PROJECT", triggers: patterns(5, "p") }),
      resolvedSkill({ name: "r", source: "RESOURCE", triggers: patterns(20, "r") }),
    ]);

    // Act
    const capped = capPatternTriggers(listing);

    // Assess
    expect(MAX_PATTERN_TRIGGERS_PER_LEVEL.USER).toBe(100);
    expect(capped.dropped).toEqual(["u5"]);
    expect([...(capped.patternsOff ?? [])]).toEqual([0, 0, 0, 0, 0, 1, 0, 0]);
    expect(listing.map((s) => capped.patternsDropped(s))).toEqual([false, false, false, false, false, true, false, false]);
    expect(listing[5]?.triggers).toHaveLength(21); // the skill itself is left as it is
    expect(capPatternTriggers(listing)).toBe(capped);
  });

  it("drops nothing when nothing is over a cap", () => {
    // Prepare
    const listing = Object.freeze([resolvedSkill({ name: "a", source: "USER", triggers: patterns(3, "a") })]);

    // Act
    const capped = capPatternTriggers(listing);

    // Assess
    expect(capped.patternsOff).toBeUndefined();
    expect(capped.dropped).toEqual([]);
    expect(capped.patternsDropped(listing[0] as (typeof listing)[0])).toBe(false);
  });
});
