import { describe, expect, it } from "vitest";
import { resolvedSkill } from "../../bench/compose-bench-helpers.js";
import { skillsByName } from "../../shared/skills/skill-listing.js";

describe("skillsByName", () => {
  it("finds every skill of a listing by name, the first one where a name repeats", () => {
    // Prepare
    const first = resolvedSkill({ name: "alpha", title: "first" });
    const listing = Object.freeze([first, resolvedSkill({ name: "beta" }), resolvedSkill({ name: "alpha", title: "second" })]);

    // Act
    const byName = skillsByName(listing);

    // Assess
    expect(byName.get("alpha")).toBe(first);
    expect(byName.get("beta")?.name).toBe("beta");
    expect(byName.get("gamma")).toBeUndefined();
    expect(skillsByName(listing)).toBe(byName);
  });

  it("sees changes to an array that is not frozen", () => {
    // Prepare
    const listing = [resolvedSkill({ name: "alpha" })];
    const before = skillsByName(listing).get("beta");

    // Act
    listing.push(resolvedSkill({ name: "beta" }));
    const after = skillsByName(listing).get("beta");

    // Assess
    expect(before).toBeUndefined();
    expect(after?.name).toBe("beta");
  });
});
