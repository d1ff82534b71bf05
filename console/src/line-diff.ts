/** One line of a diff: kept, only in the old text, or only in the new one. */
export interface DiffLine {
  kind: "same" | "removed" | "added";
  text: string;
}

export interface LineDiff {
  lines: DiffLine[];
  /** True when the changed middle was too large to align and is shown as removed-then-added. */
  approximate: boolean;
}

/** Cells of the alignment table: 4 M is 16 MB of Uint32 and ~25 ms (2 000 × 2 000 lines, measured in Node). */
export const MAX_DIFF_CELLS = 4_000_000;

const splitLines = (text: string): string[] => (text === "" ? [] : text.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n"));

/**
 * A line diff of two texts (longest common subsequence over the lines between the common prefix
 * and suffix). No diff package is installed for the console; this one is enough for a SKILL.md.
 */
export function diffLines(before: string, after: string, maxCells = MAX_DIFF_CELLS): LineDiff {
  const a = splitLines(before);
  const b = splitLines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const same = (lines: string[]): DiffLine[] => lines.map((text) => ({ kind: "same", text }));
  const head = same(a.slice(0, start));
  const tail = same(a.slice(endA));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const n = midA.length;
  const m = midB.length;
  if ((n + 1) * (m + 1) > maxCells) {
    const middle: DiffLine[] = [
      ...midA.map((text): DiffLine => ({ kind: "removed", text })),
      ...midB.map((text): DiffLine => ({ kind: "added", text })),
    ];
    return { lines: [...head, ...middle, ...tail], approximate: true };
  }
  // lcs[i][j]: the longest common subsequence of midA[i..] and midB[j..].
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      lcs[i * width + j] =
        midA[i] === midB[j]
          ? (lcs[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lcs[(i + 1) * width + j] ?? 0, lcs[i * width + j + 1] ?? 0);
    }
  }
  const middle: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && midA[i] === midB[j]) {
      middle.push({ kind: "same", text: midA[i] ?? "" });
      i += 1;
      j += 1;
    } else if (i < n && (j === m || (lcs[(i + 1) * width + j] ?? 0) >= (lcs[i * width + j + 1] ?? 0))) {
      // Removals before additions on a tie, as unified diffs show a replaced line.
      middle.push({ kind: "removed", text: midA[i] ?? "" });
      i += 1;
    } else {
      middle.push({ kind: "added", text: midB[j] ?? "" });
      j += 1;
    }
  }
  return { lines: [...head, ...middle, ...tail], approximate: false };
}
