/**
 * Agent Skills / Claude Code `allowed-tools`: a list, or one string of entries separated by
 * commas and/or whitespace. An entry may carry a permission pattern in parentheses that itself
 * holds spaces and commas (`Bash(git add:*)`, `Bash(gh pr view:*)`): separators inside
 * parentheses do not split. The tool that enters the union is the part before `(`; the whole
 * entries are kept as `allowedToolPatterns` for engines that enforce them.
 */
export interface AllowedTools {
  /** Tool names, deduplicated, in order of first appearance. */
  names: string[];
  /** Every entry as written (trimmed), deduplicated. */
  patterns: string[];
  /** Findings an author should see (warnings): unbalanced parentheses, empty names. */
  problems: string[];
}

function splitEntries(value: string): { entries: string[]; unbalanced: boolean } {
  const entries: string[] = [];
  let depth = 0;
  let current = "";
  for (const c of value) {
    if (c === "(") depth += 1;
    else if (c === ")" && depth > 0) depth -= 1;
    if (depth === 0 && (c === "," || /\s/.test(c))) {
      if (current !== "") entries.push(current);
      current = "";
      continue;
    }
    current += c;
  }
  if (current !== "") entries.push(current);
  return { entries, unbalanced: depth > 0 };
}

export function parseAllowedTools(value: string | readonly string[] | undefined): AllowedTools {
  const problems: string[] = [];
  const raw: string[] = [];
  if (typeof value === "string") {
    const { entries, unbalanced } = splitEntries(value);
    if (unbalanced) problems.push("has a '(' that is never closed; the rest of the value is one entry");
    raw.push(...entries);
  } else if (value !== undefined) {
    raw.push(...value.map((entry) => entry.trim()).filter((entry) => entry !== ""));
  }
  const names: string[] = [];
  const patterns: string[] = [];
  for (const entry of raw) {
    const open = entry.indexOf("(");
    const name = (open === -1 ? entry : entry.slice(0, open)).trim();
    if (name === "") {
      problems.push(`entry '${entry.slice(0, 80)}' names no tool (ignored)`);
      continue;
    }
    if (!names.includes(name)) names.push(name);
    if (!patterns.includes(entry)) patterns.push(entry);
  }
  return { names, patterns, problems };
}
