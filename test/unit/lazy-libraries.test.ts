import { describe, expect, it } from "vitest";
import { lazyLibraryFile, re2jsLibrary, yamlLibrary } from "../../shared/lazy/lazy-libraries.js";

describe("lazy libraries (yaml, re2js required on first use)", () => {
  it("hand back one loaded module per library, the package's own outside the bundles", () => {
    // Act
    const yaml = yamlLibrary();
    const re2js = re2jsLibrary();

    // Assess
    expect(yamlLibrary()).toBe(yaml);
    expect(yaml.parse("a: [1, 2]", { version: "1.2", schema: "core" })).toEqual({ a: [1, 2] });
    expect(re2js.RE2JS.compile("dep(loy|lo)", re2js.RE2JS.CASE_INSENSITIVE).test("DEPLOY now")).toBe(true);
  });

  it("name the files the Lambda asset writes beside index.mjs", () => {
    // Assess
    expect([lazyLibraryFile("yaml"), lazyLibraryFile("re2js")]).toEqual(["lazy-yaml.cjs", "lazy-re2js.cjs"]);
  });
});
