import { describe, expect, it } from "vitest";
import { SkillNames } from "../../cli/chat-skill-names.js";
import { closestNames, didYouMean } from "../../cli/chat-suggest.js";
import type { SkillSummary } from "../../client/index.js";

/** `skills chat`: "did you mean" for a mistyped name, and the names completion reloads on a miss. */

const NAMES = ["forms", "format", "release-notes", "release", "deploy", "pdf"];

describe("closestNames", () => {
  it.each([
    ["frms", ["forms"]],
    ["form", ["forms", "format"]],
    ["relase", ["release"]],
    ["notes", ["release-notes"]],
    ["FORMS", ["forms"]],
    ["pdf", []],
    ["kubernetes", []],
    ["", []],
  ])("%j → %j", (typed, expected) => {
    // Act
    const close = closestNames(typed, NAMES);

    // Assess
    expect(close).toEqual(expected);
  });

  it("names at most three, closest first", () => {
    // Act
    const close = closestNames("ab", ["abc", "abd", "abe", "abf", "xb"]);

    // Assess
    expect(close).toEqual(["abc", "abd", "abe"]);
  });

  it("says the suggestions as a sentence tail, or nothing", () => {
    // Act
    const one = didYouMean("frms", NAMES);
    const two = didYouMean("form", NAMES);
    const none = didYouMean("kubernetes", NAMES);

    // Assess
    expect(one).toBe("; did you mean forms?");
    expect(two).toBe("; did you mean forms or format?");
    expect(none).toBe("");
  });
});

const skill = (name: string): SkillSummary => ({
  name,
  title: name,
  description: name,
  version: "1.0.0",
  tags: [],
  source: "PROJECT",
  lifecycle: "sticky",
  triggers: [],
  arguments: false,
  run: { target: "inline" },
});

describe("SkillNames", () => {
  it("reloads after a miss, at most once per interval", async () => {
    // Prepare
    let now = 0;
    let loads = 0;
    const names = new SkillNames(async () => [skill(`s${++loads}`)], { minMissIntervalMs: 1_000, now: () => now });
    await names.refresh();

    // Act
    const first = await names.refreshAfterMiss();
    now = 500;
    const throttled = await names.refreshAfterMiss();
    now = 1_600;
    const later = await names.refreshAfterMiss();

    // Assess
    expect([first, throttled, later]).toEqual([true, false, true]);
    expect(loads).toBe(3);
    expect(names.skills.map((s) => s.name)).toEqual(["s3"]);
  });

  it("completes from what it has when the reload fails or outlasts its time box", async () => {
    // Prepare
    const failing = new SkillNames(async () => Promise.reject(new Error("down")));
    const slow = new SkillNames(() => new Promise<SkillSummary[]>(() => undefined), { timeoutMs: 20 });

    // Act
    const failed = await failing.refreshAfterMiss();
    const timedOut = await slow.refreshAfterMiss();

    // Assess
    expect(failed).toBe(false);
    expect(timedOut).toBe(false);
    expect(slow.skills).toEqual([]);
  });
});
