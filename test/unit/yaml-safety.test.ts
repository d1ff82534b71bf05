import { describe, expect, it } from "vitest";
import { parseSafeYaml } from "../../shared/yaml/yaml-safety.js";

const LIMITS = { maxBytes: 32 * 1024, maxDepth: 20 };
const parse = (text: string, options: Partial<typeof LIMITS> & { firstLine?: number } = {}) =>
  parseSafeYaml(text, "doc.yaml", { ...LIMITS, ...options });
const messages = (result: ReturnType<typeof parse>) => result.problems.map((p) => p.message);

describe("parseSafeYaml: ordinary documents", () => {
  it("parses a mapping with the YAML 1.2 core schema", () => {
    // Act
    const result = parse("a: 1\nb: [x, 'y']\nc: yes\nd: 0o17\ne: ~\n");

    // Assess
    expect(result.problems).toEqual([]);
    // YAML 1.2: `yes` is a string, not a boolean; 0o17 is octal
    expect(result.value).toEqual({ a: 1, b: ["x", "y"], c: "yes", d: 15, e: null });
  });

  it("accepts explicit core tags such as !!str", () => {
    // Act
    const result = parse("version: !!str 1.0\n");

    // Assess
    expect(result.problems).toEqual([]);
    expect(result.value).toEqual({ version: "1.0" });
  });

  it("tolerates a leading BOM", () => {
    // Act
    const result = parse("\uFEFFa: 1\n");

    // Assess
    expect(result.value).toEqual({ a: 1 });
  });

  it("accepts a quoted '<<' as an ordinary key", () => {
    // Act
    const result = parse('"<<": 1\n');

    // Assess
    expect(result.problems).toEqual([]);
    expect(result.value).toEqual({ "<<": 1 });
  });

  it("locates nodes by path, counting lines from firstLine", () => {
    // Prepare
    const text = "a: 1\nlist:\n  - x: 1\n  - x: 2\n    y: 3\n";

    // Act
    const result = parse(text, { firstLine: 2 });

    // Assess
    expect(result.lineOf(["a"])).toBe(2);
    expect(result.lineOf(["list", 1, "y"])).toBe(6);
    // a missing leaf falls back to its deepest existing ancestor
    expect(result.lineOf(["list", 1, "missing"])).toBe(5);
    expect(result.lineOf(["nope"])).toBe(2);
  });

  it("reports YAML syntax errors with their line", () => {
    // Act
    const result = parse("a: 1\nb: [unclosed\nc: 2\n", { firstLine: 10 });

    // Assess
    expect(result.value).toBeUndefined();
    expect(result.problems[0]).toMatchObject({ path: "doc.yaml", severity: "error" });
    expect(result.problems[0]?.message).toMatch(/^invalid YAML: /);
    expect(result.problems[0]?.line).toBeGreaterThanOrEqual(11);
  });
});

describe("parseSafeYaml: syntax errors say where they start and what to write", () => {
  it("reports an unclosed '[' at its own line, not at the line where the parser noticed", () => {
    // Act
    const result = parse("name: x\ndescription: d\ntags:\n  - a\ntools: [a, b\nversion: 1\n", { firstLine: 2 });

    // Assess
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({
      line: 6,
      message: expect.stringContaining("the '[' opened here is never closed; close it with ']'"),
    });
  });

  it("reports an unclosed '[' on the last line at that line, not past it", () => {
    // Act
    const result = parse("name: x\ndescription: d\ntools: [a, b\n", { firstLine: 2 });

    // Assess
    expect(result.problems[0]?.line).toBe(4);
  });

  it("reports an unclosed quote at the line it opens", () => {
    // Act
    const result = parse('a: 1\nb: "never closed\nc: 2\nd: 3\n');

    // Assess
    expect(result.problems[0]).toMatchObject({ line: 2, message: expect.stringContaining("the double quote opened here is never closed") });
  });

  it("says to quote a plain value that holds ': ', showing the quoted line", () => {
    // Act
    const result = parse('name: x\ndescription: Use when: the user asks for "notes"\n', { firstLine: 2 });

    // Assess
    expect(result.problems).toEqual([
      {
        path: "doc.yaml",
        line: 3,
        severity: "error",
        message:
          'invalid YAML: Nested mappings are not allowed in compact mappings (a plain value may not contain \': \'; quote it: description: "Use when: the user asks for \\"notes\\"")',
      },
    ]);
  });
});

describe("parseSafeYaml: size and nesting are checked before parsing", () => {
  it("rejects text over maxBytes, counted in UTF-8 bytes", () => {
    // Prepare: 20 000 characters, 40 000 bytes
    const text = `a: "${"é".repeat(20_000)}"\n`;

    // Act
    const result = parse(text);

    // Assess
    expect(result.value).toBeUndefined();
    expect(messages(result)).toEqual(["YAML is larger than 32768 bytes"]);
  });

  it.each([
    ["flow sequences", `x: ${"[".repeat(2000)}${"]".repeat(2000)}\n`],
    ["flow mappings", `x: ${"{a: ".repeat(2000)}1${"}".repeat(2000)}\n`],
    ["compact block sequences", `x:\n  ${"- ".repeat(2000)}x\n`],
    ["explicit keys", `${"? ".repeat(2000)}x\n`],
    ["indented block mappings", Array.from({ length: 60 }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n") + " 1\n"],
  ])("rejects 2 000-level nesting of %s without crashing", (_kind, text) => {
    // Act
    const result = parse(text);

    // Assess
    expect(result.value).toBeUndefined();
    expect(messages(result)).toEqual(["nesting is deeper than 20 levels"]);
  });

  it("rejects 100 000 unclosed brackets (well past what crashes the composer)", () => {
    // Act
    const result = parse("[".repeat(100_000), { maxBytes: 200_000 });

    // Assess
    expect(messages(result)).toEqual(["nesting is deeper than 20 levels"]);
  });

  it("accepts nesting exactly at the limit and rejects one level more", () => {
    // Prepare: a top-level mapping (depth 1) holding 19 or 20 nested flow sequences
    const nested = (levels: number) => `x: ${"[".repeat(levels)}1${"]".repeat(levels)}\n`;

    // Act
    const atLimit = parse(nested(19));
    const overLimit = parse(nested(20));

    // Assess
    expect(atLimit.problems).toEqual([]);
    expect(overLimit.problems.map((p) => p.message)).toEqual(["nesting is deeper than 20 levels"]);
  });

  it("points the nesting error at the line where the limit is crossed", () => {
    // Act
    const result = parse(`a: 1\nb: 2\nx: ${"[".repeat(30)}\n`, { firstLine: 2 });

    // Assess
    expect(result.problems[0]?.line).toBe(4);
  });

  it("rejects NUL characters", () => {
    // Act
    const result = parse("a: 1\nb: \0\n");

    // Assess
    expect(result.problems).toEqual([
      { path: "doc.yaml", line: 2, message: "YAML contains a NUL character (binary content)", severity: "error" },
    ]);
  });
});

describe("parseSafeYaml: refused YAML features", () => {
  it("refuses aliases, so a billion-laughs document is never expanded", () => {
    // Prepare
    const levels = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
    for (let i = 1; i < 10; i++)
      levels.push(
        `l${i}: &l${i} [${Array(9)
          .fill(`*l${i - 1}`)
          .join(", ")}]`,
      );

    // Act
    const result = parse(`${levels.join("\n")}\n`);

    // Assess
    expect(result.value).toBeUndefined();
    expect(messages(result)).toContain("YAML aliases (*l0) are not allowed");
    expect(result.problems.find((p) => p.message.startsWith("YAML aliases"))?.line).toBe(2);
    // one problem per alias would be thousands; the list stays short
    expect(result.problems.length).toBeLessThanOrEqual(11);
  });

  it("refuses anchors even without an alias", () => {
    // Act
    const result = parse("a: &anchor 1\n");

    // Assess
    expect(messages(result)).toEqual(["YAML anchors (&anchor) are not allowed"]);
  });

  it("refuses merge keys", () => {
    // Act
    const result = parse("base: {a: 1}\nchild:\n  <<: {a: 2}\n  b: 3\n");

    // Assess
    expect(result.value).toBeUndefined();
    expect(result.problems).toEqual([{ path: "doc.yaml", line: 3, message: "YAML merge keys (<<) are not supported", severity: "error" }]);
  });

  it.each([
    ["!!js/function", "a: !!js/function 'function () { return process.env }'\n", "tag:yaml.org,2002:js/function"],
    ["a local tag", "a: !foo bar\n", "!foo"],
    ["a YAML 1.1 tag", "a: !!binary aGVsbG8=\n", "tag:yaml.org,2002:binary"],
    ["a tag on a collection", "a: !!set {x: null}\n", "tag:yaml.org,2002:set"],
  ])("refuses %s", (_kind, text, tag) => {
    // Act
    const result = parse(text);

    // Assess
    expect(result.value).toBeUndefined();
    expect(messages(result)).toEqual([`YAML tag '${tag}' is not allowed`]);
  });

  it("refuses a %TAG directive that would define custom tags", () => {
    // Act
    const result = parse("%TAG !e! tag:example.com,2000:\n---\na: !e!foo x\n");

    // Assess
    expect(messages(result)).toEqual(["YAML directives (%YAML, %TAG) are not allowed"]);
  });

  it("refuses a %YAML 1.1 directive that would switch schemas", () => {
    // Act
    const result = parse("%YAML 1.1\n---\na: yes\n");

    // Assess
    expect(result.value).toBeUndefined();
    expect(result.problems[0]).toMatchObject({ line: 1, message: "YAML directives (%YAML, %TAG) are not allowed" });
  });

  it("refuses duplicate keys", () => {
    // Act
    const result = parse("a: 1\nb: 2\na: 3\n");

    // Assess
    expect(result.problems).toEqual([{ path: "doc.yaml", line: 3, message: "invalid YAML: Map keys must be unique", severity: "error" }]);
  });

  it("refuses collection keys", () => {
    // Act
    const result = parse("? [a, b]\n: 1\n");

    // Assess
    expect(result.value).toBeUndefined();
    expect(messages(result)[0]).toMatch(/^invalid YAML: .*keys must be strings/);
  });

  it("refuses several documents in one text", () => {
    // Act
    const result = parse("a: 1\n---\nb: 2\n");

    // Assess
    expect(result.value).toBeUndefined();
    expect(messages(result)[0]).toMatch(/multiple documents/);
  });

  it.each([
    ["at the top", "__proto__:\n  polluted: yes\n", 1],
    ["nested", "a:\n  b:\n    __proto__: {polluted: yes}\n", 3],
    ["quoted", '"__proto__": {polluted: yes}\n', 1],
  ])("refuses a __proto__ key %s and leaves Object.prototype alone", (_where, text, line) => {
    // Act
    const result = parse(text);

    // Assess
    expect(result.value).toBeUndefined();
    expect(result.problems).toEqual([{ path: "doc.yaml", line, message: "the key '__proto__' is not allowed", severity: "error" }]);
    expect(Object.prototype).not.toHaveProperty("polluted");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
