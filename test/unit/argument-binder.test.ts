import { describe, expect, it } from "vitest";
import { SkillArgumentMissing } from "../../shared/errors.js";
import { MAX_RAW_ARGUMENTS_LENGTH, bindArguments } from "../../shared/skills/skill-argument-binder.js";
import { SkillArgumentInvalid, SkillArgumentsTooLong } from "../../shared/skills/skill-errors.js";
import type { SkillArgument } from "../../shared/skills/skill-frontmatter.js";

const arg = (name: string, type: SkillArgument["type"] = "string", required = false): SkillArgument => ({
  name,
  type,
  required,
});

function bindOne(type: SkillArgument["type"], raw: string): unknown {
  return bindArguments("s", [arg("value", type)], raw)?.value;
}

function failure(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("bindArguments: declaration", () => {
  it("does not consume the rest when arguments are missing or false", () => {
    // Assess
    expect(bindArguments("s", undefined, "check PR #42")).toBeUndefined();
    expect(bindArguments("s", false, "check PR #42")).toBeUndefined();
  });

  it("binds the raw view for `true`: trimmed text and whitespace tokens", () => {
    // Act
    const bound = bindArguments("s", true, "  check   PR #42 \n");

    // Assess
    expect(bound).toEqual({ text: "check   PR #42", words: ["check", "PR", "#42"] });
  });

  it("binds an empty raw view when there is no rest", () => {
    // Assess
    expect(bindArguments("s", true, undefined)).toEqual({ text: "", words: [] });
    expect(bindArguments("s", [arg("scope")], "   ")).toEqual({ text: "", words: [] });
  });
});

describe("bindArguments: positional binding", () => {
  it("gives each declared argument one token and the last string argument the rest", () => {
    // Act
    const bound = bindArguments("s", [arg("mode"), arg("scope")], "  quick  src/main   java tests  ");

    // Assess
    expect(bound).toEqual({
      text: "quick  src/main   java tests",
      words: ["quick", "src/main", "java", "tests"],
      mode: "quick",
      scope: "src/main   java tests",
    });
  });

  it("binds one token per argument when the last one is not a string; excess tokens stay in text/words", () => {
    // Act
    const bound = bindArguments("s", [arg("path"), arg("depth", "integer")], "src 3 extra words");

    // Assess
    expect(bound).toEqual({ text: "src 3 extra words", words: ["src", "3", "extra", "words"], path: "src", depth: 3 });
  });

  it("leaves optional arguments without a token unset", () => {
    // Act
    const bound = bindArguments("s", [arg("first"), arg("second", "integer")], "only");

    // Assess
    expect(bound).toEqual({ text: "only", words: ["only"], first: "only" });
    expect(bound !== undefined && "second" in bound).toBe(false);
  });

  it("throws SkillArgumentMissing for a required argument without a token", () => {
    // Act
    const error = failure(() => bindArguments("review", [arg("scope"), arg("depth", "integer", true)], "src"));

    // Assess
    expect(error).toBeInstanceOf(SkillArgumentMissing);
    expect(error).toMatchObject({ skillName: "review", argumentName: "depth", code: "SKILL_ARGUMENT_MISSING" });
  });

  it("splits and trims on Unicode whitespace", () => {
    // Act
    const bound = bindArguments("s", [arg("a"), arg("rest")], "\u00a0one\u3000two\u2003three\u2028four\u00a0");

    // Assess
    expect(bound).toMatchObject({
      words: ["one", "two", "three", "four"],
      a: "one",
      rest: "two\u2003three\u2028four",
    });
  });

  it("lets a declared argument named text shadow the raw view", () => {
    // Act
    const bound = bindArguments("s", [arg("mode"), arg("text")], "fast all of it");

    // Assess
    expect(bound?.text).toBe("all of it");
    expect(bound?.words).toEqual(["fast", "all", "of", "it"]);
  });

  it("stores an argument named __proto__ as data without touching the prototype", () => {
    // Act
    const bound = bindArguments("s", [arg("__proto__", "object")], '{"polluted":true}');

    // Assess
    expect(Object.getPrototypeOf(bound)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(bound, "__proto__")?.value).toEqual({ polluted: true });
    expect((bound as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("bindArguments: type coercion", () => {
  it.each([
    ["3.5", 3.5],
    ["-1e3", -1000],
    [".5", 0.5],
    ["+7", 7],
    ["10.", 10],
  ])("number %s → %s", (raw, expected) => {
    // Assess
    expect(bindOne("number", raw)).toBe(expected);
  });

  it.each([["abc"], ["0x10"], ["1e999"], ["NaN"], ["Infinity"], ["1,5"]])("number rejects %s", (raw) => {
    // Act
    const error = failure(() => bindOne("number", raw));

    // Assess
    expect(error).toBeInstanceOf(SkillArgumentInvalid);
    expect(error).toMatchObject({ argumentName: "value", code: "INVALID_REQUEST" });
  });

  it.each([
    ["42", 42],
    ["-7", -7],
    ["+3", 3],
    ["007", 7],
  ])("integer %s → %s", (raw, expected) => {
    // Assess
    expect(bindOne("integer", raw)).toBe(expected);
  });

  it.each([["4.2"], ["1e3"], ["9007199254740993"], ["ten"]])("integer rejects %s", (raw) => {
    // Assess
    expect(failure(() => bindOne("integer", raw))).toBeInstanceOf(SkillArgumentInvalid);
  });

  it.each([
    ["TRUE", true],
    ["yes", true],
    ["1", true],
    ["False", false],
    ["NO", false],
    ["0", false],
  ])("boolean %s → %s", (raw, expected) => {
    // Assess
    expect(bindOne("boolean", raw)).toBe(expected);
  });

  it.each([["maybe"], ["2"], ["on"]])("boolean rejects %s", (raw) => {
    // Assess
    expect(failure(() => bindOne("boolean", raw))).toBeInstanceOf(SkillArgumentInvalid);
  });

  it("parses object and array arguments as one JSON token of that kind", () => {
    // Assess
    expect(bindOne("object", '{"a":[1,2],"b":"x"}')).toEqual({ a: [1, 2], b: "x" });
    expect(bindOne("array", '[1,{"c":null}]')).toEqual([1, { c: null }]);
  });

  it.each([
    ["object", "[1]"],
    ["object", "null"],
    ["object", "{bad"],
    ["object", '"text"'],
    ["array", '{"a":1}'],
    ["array", "[1,"],
  ] as const)("%s rejects %s", (type, raw) => {
    // Assess
    expect(failure(() => bindOne(type, raw))).toBeInstanceOf(SkillArgumentInvalid);
  });

  it("rejects JSON nested deeper than the limit", () => {
    // Prepare
    const deep = `${"[".repeat(40)}${"]".repeat(40)}`;

    // Act
    const error = failure(() => bindOne("array", deep));

    // Assess
    expect(error).toBeInstanceOf(SkillArgumentInvalid);
    expect(bindOne("array", `${"[".repeat(10)}${"]".repeat(10)}`)).toBeInstanceOf(Array);
  });

  it("names the argument and a preview of the bad token in the message", () => {
    // Act
    const error = failure(() => bindArguments("deploy", [arg("count", "integer")], "lots"));

    // Assess
    expect((error as Error).message).toBe(
      "Skill 'deploy' argument 'count' must be an integer between -9007199254740991 and 9007199254740991, got 'lots'",
    );
  });
});

describe("bindArguments: size limit", () => {
  it("rejects raw arguments above the limit before any parsing", () => {
    // Prepare
    const atLimit = "x".repeat(MAX_RAW_ARGUMENTS_LENGTH);

    // Act
    const error = failure(() => bindArguments("s", true, `${atLimit}y`));

    // Assess
    expect(error).toBeInstanceOf(SkillArgumentsTooLong);
    expect(error).toMatchObject({ code: "INVALID_REQUEST", length: MAX_RAW_ARGUMENTS_LENGTH + 1 });
    expect(bindArguments("s", true, atLimit)?.text).toHaveLength(MAX_RAW_ARGUMENTS_LENGTH);
  });
});
