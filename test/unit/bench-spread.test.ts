import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { repeated, rowsWithoutSpread, type BenchRow } from "../../bench/bench-table.js";

const row = (metric: string, unit: string, figures?: number[]): BenchRow => ({
  metric,
  ...(figures === undefined ? { ours: 1 } : repeated(figures)),
  baseline: null,
  unit,
});

describe("timing rows of the bench", () => {
  it("are refused when they carry no spread, or one of fewer than three repetitions", () => {
    // Arrange
    const rows = [
      row("single_ms", "ms"),
      row("two_runs_per_s", "1/s", [1, 2]),
      row("ratio_single", "×"),
      row("seconds_single", "s"),
      row("microseconds_single", "µs"),
      row("repeated_ms", "ms", [3, 1, 2]),
      row("size_kb", "KB"),
      row("requests", "req"),
      row("heap_mb", "MB"),
      row("violations", "count"),
    ];

    // Act
    const refused = rowsWithoutSpread(rows);

    // Assess
    expect(refused).toEqual(["single_ms", "two_runs_per_s", "ratio_single", "seconds_single", "microseconds_single"]);
  });

  it("all carry a spread in the committed results (bench/results.json, what the README table is made from)", () => {
    // Arrange
    const rows = JSON.parse(readFileSync(new URL("../../bench/results.json", import.meta.url), "utf8")) as BenchRow[];

    // Act
    const refused = rowsWithoutSpread(rows);

    // Assess
    expect(rows.length).toBeGreaterThan(100);
    expect(refused).toEqual([]);
  });
});
