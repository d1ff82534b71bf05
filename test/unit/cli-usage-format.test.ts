import { describe, expect, it } from "vitest";
import { formatUsage } from "../../cli/usage-client.js";
import { usageRow } from "../support/usage-row.js";

describe("skills usage: the table", () => {
  it("prints one aligned line per row with a column naming the codes refusals answered", () => {
    // Prepare
    const rows = [
      usageRow("2026-12-03", { explicit: 12, trigger: 3 }),
      usageRow("2026-12-03", { refused: 3, refusedCodes: { SKILL_NOT_ALLOWED: 2, SKILL_NOT_FOUND: 1 } }, "outsider", null),
      usageRow("2026-12-01", { model: 1 }, "old"),
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
