import { describe, expect, it } from "vitest";
import { formatUsage } from "../../cli/usage-client.js";
import type { SkillUsageRow } from "../../client/index.js";

const row = (overrides: Partial<SkillUsageRow>): SkillUsageRow => ({
  name: "deploy",
  source: "PROJECT",
  day: "2026-12-03",
  explicit: 0,
  trigger: 0,
  model: 0,
  recipe: 0,
  spawn: 0,
  refused: 0,
  ...overrides,
});

describe("skills usage: the table", () => {
  it("prints one aligned line per row with a column naming the codes refusals answered", () => {
    // Prepare
    const rows = [
      row({ explicit: 12, trigger: 3 }),
      row({ name: "outsider", source: null, refused: 3, refusedCodes: { SKILL_NOT_ALLOWED: 2, SKILL_NOT_FOUND: 1 } }),
      row({ name: "old", day: "2026-12-01", model: 1 }),
    ];

    // Act
    const lines = formatUsage(rows);

    // Assess
    expect(lines).toEqual([
      "day         name      source   explicit  trigger  model  recipe  spawn  refused  refused-by",
      "2026-12-03  deploy    PROJECT  12        3        0      0       0      0        -",
      "2026-12-03  outsider  -        0         0        0      0       0      3        SKILL_NOT_ALLOWED:2,SKILL_NOT_FOUND:1",
      "2026-12-01  old       PROJECT  0         0        1      0       0      0        -",
    ]);
  });
});
