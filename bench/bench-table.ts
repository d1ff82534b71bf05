/** One benchmark figure, beside its baseline from the same run where one exists. */
export interface BenchRow {
  metric: string;
  ours: number;
  baseline: number | null;
  unit: string;
  note?: string;
  /** A timing row's repetitions: `ours` is their median. */
  spread?: Spread;
}

export interface Spread {
  min: number;
  max: number;
  runs: number;
}

export const median = (values: readonly number[]): number => percentile(values, 50);

/** `ours` = median of the repetitions' figures, with their spread. */
export const repeated = (figures: readonly number[]): Pick<BenchRow, "ours" | "spread"> => ({
  ours: median(figures),
  spread: { min: Math.min(...figures), max: Math.max(...figures), runs: figures.length },
});

export const percentile = (samples: readonly number[], p: number): number => {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
};

export async function timeMany(n: number, fn: (i: number) => Promise<unknown> | unknown): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    await fn(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return samples;
}

/**
 * A percentile row's repetitions: p50 and p99 of each of `runs` batches of `size` samples, so each
 * batch is one repetition (sample i of batch r is `fn(r * size + i)`).
 */
export async function batchPercentiles(
  runs: number,
  size: number,
  fn: (i: number) => Promise<unknown> | unknown,
): Promise<{ p50: number[]; p99: number[] }> {
  const p50: number[] = [];
  const p99: number[] = [];
  for (let r = 0; r < runs; r++) {
    const samples = await timeMany(size, (i) => fn(r * size + i));
    p50.push(percentile(samples, 50));
    p99.push(percentile(samples, 99));
  }
  return { p50, p99 };
}

/**
 * Rows over one section's repetitions (each an object of figures and sample batches): a row's
 * figure is picked from every repetition, or is the percentile of every repetition's batch. In ms,
 * rounded to the microsecond.
 */
export function repetitionRows<R>(prefix: string, runs: readonly R[]) {
  const row = (metric: string, pick: (run: R) => number, note: string): BenchRow => ({
    metric: `${prefix}${metric}`,
    ...repeated(runs.map((run) => Math.round(pick(run) * 1000) / 1000)),
    baseline: null,
    unit: "ms",
    note,
  });
  const percentileRow = (metric: string, batch: (run: R) => number[], p: number, note: string): BenchRow =>
    row(metric, (run) => percentile(batch(run), p), note);
  return { row, percentileRow };
}

const round = (value: number): string =>
  Number.isFinite(value) ? (Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3)) : String(value);

/** "min–max (n)" of a repeated row, "-" for a single measurement. */
export const spreadText = (spread: Spread | undefined): string =>
  spread === undefined ? "-" : `${round(spread.min)}–${round(spread.max)} (${spread.runs})`;

export function formatTable(rows: readonly BenchRow[]): string {
  const header = ["metric", "ours", "spread", "baseline", "unit", "note"];
  const body = rows.map((r) => [
    r.metric,
    round(r.ours),
    spreadText(r.spread),
    r.baseline === null ? "-" : round(r.baseline),
    r.unit,
    r.note ?? "",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((line) => (line[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

/** The README's benchmark table: the rows named in `metrics` (in that order), with their spread. */
export function markdownTable(rows: readonly BenchRow[], metrics: readonly string[]): string {
  const byMetric = new Map(rows.map((row) => [row.metric, row]));
  const lines = ["| metric | ours | spread (min–max, runs) | baseline (naive) | unit |", "| --- | ---: | ---: | ---: | --- |"];
  for (const metric of metrics) {
    const row = byMetric.get(metric);
    if (row === undefined) continue;
    lines.push(
      `| \`${metric}\` | ${round(row.ours)} | ${spreadText(row.spread)} | ${row.baseline === null ? "–" : round(row.baseline)} | ${row.unit} |`,
    );
  }
  return lines.join("\n");
}

/**
 * Units of figures that are not timings (sizes, counts): every other unit is a timing, which on a
 * shared machine says little without its spread. A deny-list, so a new timing unit is held to it too.
 */
const NOT_TIMING_UNITS: ReadonlySet<string> = new Set(["KB", "MB", "req", "count", ""]);
/** Fewer repetitions than this is not a spread. */
export const MIN_RUNS = 3;

/** Timing rows reported without a spread of at least MIN_RUNS repetitions (issue 31): `npm run bench` refuses them. */
export const rowsWithoutSpread = (rows: readonly BenchRow[]): string[] =>
  rows.filter((row) => !NOT_TIMING_UNITS.has(row.unit) && (row.spread?.runs ?? 0) < MIN_RUNS).map((row) => row.metric);
