import { describe, expect, it } from "vitest";
import { capFindings, capMessages, MAX_LISTED_WARNINGS, MAX_WARNING_CHARS } from "../../shared/support/capped-list.js";

describe("capMessages / capFindings: warnings capped like problems", () => {
  it("keeps a short list as it is", () => {
    // Act
    const capped = capMessages(["a", "b"]);

    // Assess
    expect(capped).toEqual(["a", "b"]);
  });

  it.each([MAX_LISTED_WARNINGS + 1, 2500])("keeps the first 50 of %i and ends with '… N more'", (count) => {
    // Prepare
    const warnings = Array.from({ length: count }, (_, i) => `unknown field 'f${i}'`);

    // Act
    const capped = capMessages(warnings);

    // Assess
    expect(capped).toHaveLength(MAX_LISTED_WARNINGS + 1);
    expect(capped.slice(0, MAX_LISTED_WARNINGS)).toEqual(warnings.slice(0, MAX_LISTED_WARNINGS));
    expect(capped.at(-1)).toBe(`… ${count - MAX_LISTED_WARNINGS} more`);
  });

  it("clips each message, so a few huge warnings cannot make a huge answer either", () => {
    // Act
    const capped = capMessages(["x".repeat(100_000)]);

    // Assess
    expect(capped[0]).toHaveLength(MAX_WARNING_CHARS + 1);
    expect(capped[0]?.endsWith("…")).toBe(true);
  });

  it("caps {path, line, message} findings and names the first left-out path in the last one", () => {
    // Prepare
    const findings = Array.from({ length: 2500 }, (_, i) => ({
      path: `_vance/skills/s${i}/SKILL.md`,
      line: i + 1,
      message: `unknown field 'f${i}'`,
    }));

    // Act
    const capped = capFindings(findings);

    // Assess
    expect(capped).toHaveLength(MAX_LISTED_WARNINGS + 1);
    expect(capped.at(-1)).toEqual({ path: "_vance/skills/s50/SKILL.md", message: "… 2450 more" });
    expect(JSON.stringify(capped).length).toBeLessThan(10_000);
  });
});
