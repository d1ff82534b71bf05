import { describe, expect, it } from "vitest";
import { resolvedSkill } from "../../bench/compose-bench-helpers.js";
import {
  buildCatalog,
  CATALOG_HEADER,
  catalogFor,
  MAX_CATALOG_DESCRIPTION_CHARS,
  MAX_OMITTED_NAMES,
  MIN_CATALOG_DESCRIPTION_CHARS,
} from "../../shared/skills/skill-catalog.js";
import type { CatalogOptions } from "../../shared/skills/skill-catalog.js";
import type { ResolvedSkill } from "../../shared/skills/resolved-skill.js";
import { MAX_TURN_BYTES } from "../../shared/turns/turn-errors.js";

const open = (overrides: Partial<CatalogOptions> = {}): CatalogOptions => ({
  budgetChars: 8_000,
  activeNames: [],
  allowedSkills: null,
  ...overrides,
});

const skills = (n: number, description = (i: number) => `Does task number ${i}`): ResolvedSkill[] =>
  Array.from({ length: n }, (_, i) => resolvedSkill({ name: `skill-${String(i).padStart(2, "0")}`, description: description(i) }));

describe("skill catalog: candidates", () => {
  it("lists enabled, allowed, inactive skills that allow model invocation, user-invocable: false included", () => {
    // Prepare
    const listing = [
      resolvedSkill({ name: "plain", description: "Plain" }),
      resolvedSkill({ name: "hidden-from-users", description: "Model only", userInvocable: false }),
      resolvedSkill({ name: "user-only", description: "No model", disableModelInvocation: true }),
      resolvedSkill({ name: "off", description: "Disabled", enabled: false }),
      resolvedSkill({ name: "busy", description: "Active" }),
      resolvedSkill({ name: "outside", description: "Not allowed" }),
    ];

    // Act
    const { catalog } = buildCatalog(
      listing,
      open({ activeNames: ["busy"], allowedSkills: ["plain", "hidden-from-users", "user-only", "off", "busy"] }),
    );

    // Assess
    expect(catalog.entries.map((e) => e.name)).toEqual(["hidden-from-users", "plain"]);
    expect(catalog.omitted).toEqual([]);
  });

  it("appends when_to_use to the description on one line and keeps the skill's source", () => {
    // Prepare
    const listing = [
      resolvedSkill({
        name: "pdf",
        description: "Fill PDF forms.\n  Extract text.",
        whenToUse: "When the user\nmentions a PDF",
        source: "VANCE",
      }),
    ];

    // Act
    const { catalog, text } = buildCatalog(listing, open());

    // Assess
    expect(catalog.entries).toEqual([
      {
        name: "pdf",
        description: "Fill PDF forms. Extract text. When the user mentions a PDF",
        source: "VANCE",
        approxTokens: expect.any(Number),
      },
    ]);
    expect(text).toBe(`${CATALOG_HEADER}\n- pdf: Fill PDF forms. Extract text. When the user mentions a PDF`);
    expect(catalog.usedChars).toBe(text.length);
    expect(catalog.approxTokens).toBe(Math.ceil(text.length / 4));
  });

  it("is off with a budget of 0: no entries, nothing omitted, no text", () => {
    // Act
    const built = buildCatalog(skills(5), open({ budgetChars: 0 }));

    // Assess
    expect(built).toEqual({
      catalog: { entries: [], omitted: [], omittedCount: 0, budgetChars: 0, usedChars: 0, approxTokens: 0 },
      text: "",
    });
  });
});

describe("skill catalog: order and budget", () => {
  it("lists pinned skills first in recipe order, then the others by code point", () => {
    // Prepare
    const listing = ["b", "Z", "a", "c", "é"].map((name) => resolvedSkill({ name, description: `Skill ${name}` }));

    // Act
    const { catalog } = buildCatalog(listing, open({ pinned: ["c", "missing", "b"] }));

    // Assess
    expect(catalog.entries.map((e) => e.name)).toEqual(["c", "b", "Z", "a", "é"]);
  });

  it("shortens the longest descriptions first, down to a common length, each cut one ending in …", () => {
    // Prepare
    const listing = [
      resolvedSkill({ name: "short", description: "Short one" }),
      resolvedSkill({ name: "long", description: "x".repeat(900) }),
    ];
    const budget = CATALOG_HEADER.length + 300;

    // Act
    const { catalog, text } = buildCatalog(listing, open({ budgetChars: budget }));

    // Assess
    const long = catalog.entries.find((e) => e.name === "long")!;
    expect(catalog.entries.map((e) => e.name)).toEqual(["long", "short"]);
    expect(catalog.entries.find((e) => e.name === "short")!.description).toBe("Short one");
    expect(long.description.endsWith("…")).toBe(true);
    expect(long.description.length).toBeGreaterThanOrEqual(MIN_CATALOG_DESCRIPTION_CHARS);
    expect(catalog.omitted).toEqual([]);
    expect(catalog.usedChars).toBe(text.length);
    expect(catalog.usedChars).toBeLessThanOrEqual(budget);
    // As much as fits: one more character would not.
    expect(catalog.usedChars).toBeGreaterThan(budget - 2);
  });

  it("omits whole entries from the end once descriptions are at the floor, naming every one, pinned kept", () => {
    // Prepare
    const listing = skills(30, (i) => `Task ${i} ${"detail ".repeat(40)}`);
    const budget = 1_000;

    // Act
    const { catalog, text } = buildCatalog(listing, open({ budgetChars: budget, pinned: ["skill-29"] }));

    // Assess
    expect(catalog.entries.length).toBeGreaterThan(0);
    expect(catalog.entries[0]!.name).toBe("skill-29");
    expect(catalog.usedChars).toBeLessThanOrEqual(budget);
    expect(catalog.usedChars).toBe(text.length);
    const named = [...catalog.entries.map((e) => e.name), ...catalog.omitted];
    expect([...named].sort()).toEqual(listing.map((s) => s.name).sort());
    expect(catalog.omitted).toEqual(
      listing
        .map((s) => s.name)
        .filter((n) => n !== "skill-29")
        .slice(catalog.entries.length - 1),
    );
    for (const entry of catalog.entries) expect(entry.description.length).toBeLessThanOrEqual(MIN_CATALOG_DESCRIPTION_CHARS + 20);
  });

  it("omits everything, with no text, when not even one entry fits", () => {
    // Act
    const built = buildCatalog(skills(3), open({ budgetChars: 20 }));

    // Assess
    expect(built.catalog.entries).toEqual([]);
    expect(built.catalog.omitted).toEqual(["skill-00", "skill-01", "skill-02"]);
    expect(built.text).toBe("");
    expect(built.catalog.usedChars).toBe(0);
  });

  it("gives the same bytes for the same skills, whatever the listing order", () => {
    // Prepare
    const listing = skills(40);

    // Act
    const a = buildCatalog(listing, open({ budgetChars: 900 }));
    const b = buildCatalog([...listing].reverse(), open({ budgetChars: 900 }));

    // Assess
    expect(b.text).toBe(a.text);
    expect(b.catalog).toEqual(a.catalog);
  });
});

describe("skill catalog: bad input and scale", () => {
  it("caps a 50 KB description before any budget applies", () => {
    // Prepare
    const listing = [resolvedSkill({ name: "huge", description: "word ".repeat(10_000), whenToUse: "y".repeat(50_000) })];

    // Act
    const { catalog } = buildCatalog(listing, open({ budgetChars: 100_000 }));

    // Assess
    expect(catalog.entries[0]!.description.length).toBeLessThanOrEqual(MAX_CATALOG_DESCRIPTION_CHARS);
    expect(catalog.entries[0]!.description.endsWith("…")).toBe(true);
  });

  it("never splits a surrogate pair when shortening", () => {
    // Prepare
    const listing = [resolvedSkill({ name: "emoji", description: "😀".repeat(700) })];

    // Act
    const { catalog } = buildCatalog(listing, open({ budgetChars: CATALOG_HEADER.length + 200 }));

    // Assess
    const description = catalog.entries[0]!.description;
    expect(description.endsWith("…")).toBe(true);
    expect(/[\ud800-\udbff](?![\udc00-\udfff])/.test(description)).toBe(false);
  });

  it("builds a catalog of 10 000 skills within the default budget, naming the rest as omitted", () => {
    // Prepare
    const listing = Array.from({ length: 10_000 }, (_, i) =>
      resolvedSkill({ name: `s-${String(i).padStart(5, "0")}`, description: `Skill ${i} does one thing` }),
    );

    // Act
    const { catalog } = buildCatalog(listing, open());

    // Assess
    expect(catalog.usedChars).toBeLessThanOrEqual(8_000);
    expect(catalog.entries.length + catalog.omittedCount).toBe(10_000);
    expect(catalog.omitted).toHaveLength(MAX_OMITTED_NAMES);
    expect(catalog.omitted[0]).toBe(`s-${String(catalog.entries.length).padStart(5, "0")}`);
    expect(catalog.entries[0]!.name).toBe("s-00000");
  });

  it("stays far below the turn cap with 10 000 skills of 64-character names", () => {
    // Prepare
    const listing = Array.from({ length: 10_000 }, (_, i) =>
      resolvedSkill({ name: `${"n".repeat(59)}${String(i).padStart(5, "0")}`, description: `Skill ${i}` }),
    );

    // Act
    const { catalog } = buildCatalog(listing, open());

    // Assess
    expect(catalog.entries.length + catalog.omittedCount).toBe(10_000);
    expect(Buffer.byteLength(JSON.stringify(catalog))).toBeLessThan(MAX_TURN_BYTES / 4);
  });

  it("hands out the same frozen catalog for the same listing, recipe and active set, and a new one when the active set changes", () => {
    // Prepare
    const listing = Object.freeze(skills(5));

    // Act
    const first = catalogFor(listing, open({ activeNames: ["skill-01", "skill-00"] }));
    const again = catalogFor(listing, open({ activeNames: ["skill-00", "skill-01"] }));
    const other = catalogFor(listing, open({ activeNames: ["skill-00"] }));

    // Assess
    expect(again).toBe(first);
    expect(Object.isFrozen(first.catalog.entries)).toBe(true);
    expect(other.catalog.entries.map((e) => e.name)).toContain("skill-01");
    expect(first.catalog.entries.map((e) => e.name)).not.toContain("skill-01");
  });
});
