import { distance } from "fastest-levenshtein";

/** At most this many names follow "did you mean". */
const MAX_SUGGESTIONS = 3;

/**
 * The names a mistyped one most likely meant, closest first: those within a third of its length in
 * edits (at least one, so `frms` finds `forms`), then those it is a prefix or a part of (`release`
 * finds `release-notes`). Case is ignored: names are lower-case kebab, typing may not be.
 */
export function closestNames(typed: string, names: readonly string[]): string[] {
  const needle = typed.toLowerCase();
  if (needle === "") return [];
  const budget = Math.max(1, Math.floor(needle.length / 3));
  const scored: { name: string; score: number }[] = [];
  for (const name of new Set(names)) {
    if (name === typed) continue;
    const edits = distance(needle, name.toLowerCase());
    if (edits <= budget) scored.push({ name, score: edits });
    else if (name.toLowerCase().includes(needle)) scored.push({ name, score: budget + 1 + name.length - needle.length });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, MAX_SUGGESTIONS)
    .map((entry) => entry.name);
}

/** `; did you mean a, b or c?` — empty when nothing is close. */
export function didYouMean(typed: string, names: readonly string[]): string {
  const close = closestNames(typed, names);
  if (close.length === 0) return "";
  const listed = close.length === 1 ? close[0] : `${close.slice(0, -1).join(", ")} or ${close.at(-1)}`;
  return `; did you mean ${listed}?`;
}
