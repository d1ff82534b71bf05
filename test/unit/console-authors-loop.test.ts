import { describe, expect, it } from "vitest";
import { usageRow } from "../support/usage-row.js";
import { diffLines } from "../../console/src/line-diff.js";
import { describeCodes, summarizeUsage } from "../../console/src/usage-summary.js";
import { formatSize, shortVersionId, writtenByOf } from "../../console/src/version-label.js";

const row = usageRow;

describe("the console's usage summary", () => {
  it("sums one skill's rows per day over its sources, newest day first, with totals per path", () => {
    // Prepare
    const rows = [
      row("2026-12-01", { explicit: 2, trigger: 1 }),
      row("2026-12-03", { model: 1 }, "deploy", "USER"),
      row("2026-12-03", { recipe: 1, spawn: 2 }),
      row("2026-12-03", { refused: 4, refusedCodes: { SKILL_NOT_ALLOWED: 1, SKILL_NOT_FOUND: 3 } }, "deploy", null),
      row("2026-12-01", { refused: 1, refusedCodes: { SKILL_NOT_ALLOWED: 1 } }, "deploy", "PROJECT"),
      row("2026-12-03", { explicit: 9, refused: 5, refusedCodes: { SKILL_LOCKED: 5 } }, "other"),
    ];

    // Act
    const summary = summarizeUsage(rows, "deploy");

    // Assess
    expect(summary.days.map((day) => [day.day, day.total, day.sources])).toEqual([
      ["2026-12-03", 8, ["USER", "PROJECT"]],
      ["2026-12-01", 4, ["PROJECT"]],
    ]);
    expect(summary.days[0]?.counts).toEqual({ explicit: 0, trigger: 0, model: 1, recipe: 1, spawn: 2, refused: 4 });
    expect(summary.totals).toEqual({ explicit: 2, trigger: 1, model: 1, recipe: 1, spawn: 2, refused: 5 });
    expect(summary.total).toBe(12);
    expect(summary.days.map((day) => describeCodes(day.refusedCodes))).toEqual([
      "SKILL_NOT_ALLOWED 1, SKILL_NOT_FOUND 3",
      "SKILL_NOT_ALLOWED 1",
    ]);
    expect(summary.refusedCodes).toEqual([
      ["SKILL_NOT_FOUND", 3],
      ["SKILL_NOT_ALLOWED", 2],
    ]);
  });

  it("is empty when nothing of that skill was counted", () => {
    // Act
    const summary = summarizeUsage([row("2026-12-03", { explicit: 1 }, "other"), row("2026-12-02", {})], "deploy");

    // Assess
    expect(summary).toEqual({
      days: [],
      totals: { explicit: 0, trigger: 0, model: 0, recipe: 0, spawn: 0, refused: 0 },
      refusedCodes: [],
      total: 0,
    });
  });
});

describe("the console's line diff", () => {
  it("keeps common lines and shows a replaced line as removed then added", () => {
    // Act
    const diff = diffLines("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n");

    // Assess
    expect(diff.approximate).toBe(false);
    expect(diff.lines).toEqual([
      { kind: "same", text: "a" },
      { kind: "removed", text: "b" },
      { kind: "added", text: "B" },
      { kind: "same", text: "c" },
      { kind: "same", text: "d" },
      { kind: "added", text: "e" },
    ]);
  });

  it("aligns moved blocks on their longest common run", () => {
    // Act
    const diff = diffLines("x\n1\n2\n3\ny", "1\n2\n3\nx\ny");

    // Assess
    expect(diff.lines.filter((line) => line.kind !== "same")).toEqual([
      { kind: "removed", text: "x" },
      { kind: "added", text: "x" },
    ]);
    expect(diff.lines.filter((line) => line.kind === "same").map((line) => line.text)).toEqual(["1", "2", "3", "y"]);
  });

  it("treats CRLF like LF, and equal texts as all kept", () => {
    // Act
    const diff = diffLines("one\r\ntwo\r\n", "one\ntwo");

    // Assess
    expect(diff.lines).toEqual([
      { kind: "same", text: "one" },
      { kind: "same", text: "two" },
    ]);
  });

  it("diffs from and to an empty text", () => {
    // Act
    const added = diffLines("", "a\nb");
    const removed = diffLines("a", "");

    // Assess
    expect(added.lines).toEqual([
      { kind: "added", text: "a" },
      { kind: "added", text: "b" },
    ]);
    expect(removed.lines).toEqual([{ kind: "removed", text: "a" }]);
  });

  it("falls back to removed-then-added past the alignment bound, keeping the common ends", () => {
    // Prepare
    const before = ["head", ...Array.from({ length: 50 }, (_, i) => `old ${i}`), "tail"].join("\n");
    const after = ["head", ...Array.from({ length: 50 }, (_, i) => `new ${i}`), "tail"].join("\n");

    // Act
    const diff = diffLines(before, after, 100);

    // Assess
    expect(diff.approximate).toBe(true);
    expect(diff.lines[0]).toEqual({ kind: "same", text: "head" });
    expect(diff.lines.at(-1)).toEqual({ kind: "same", text: "tail" });
    expect(diff.lines.filter((line) => line.kind === "removed")).toHaveLength(50);
    expect(diff.lines.slice(1, 51).every((line) => line.kind === "removed")).toBe(true);
  });
});

describe("the console's version labels", () => {
  const version = { versionId: "3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY", etag: '"e"', lastModified: "2026-12-03T18:00:00.000Z", size: 12 };

  it("shortens a long version id to its end, which tells close versions apart, and keeps a short one", () => {
    // Act
    const long = shortVersionId(version.versionId);
    const local = [shortVersionId("1764787200000-0001-a1b2c3"), shortVersionId("1764787200004-0002-d4e5f6")];
    const short = shortVersionId("v1");

    // Assess
    expect(long).toBe("…d3dIbrHY");
    expect(local).toEqual(["…1-a1b2c3", "…2-d4e5f6"]);
    expect(short).toBe("v1");
  });

  it.each([
    [undefined, undefined],
    ["alice", "alice"],
    ["", undefined],
  ])("reads writtenBy %j as %j", (writtenBy, expected) => {
    // Act
    const label = writtenByOf({ ...version, ...(writtenBy === undefined ? {} : { writtenBy }) });

    // Assess
    expect(label).toBe(expected);
  });

  it("shows bytes below 10 KiB and KiB above", () => {
    // Act
    const sizes = [formatSize(812), formatSize(20 * 1024 + 512)];

    // Assess
    expect(sizes).toEqual(["812 B", "20.5 KiB"]);
  });
});
