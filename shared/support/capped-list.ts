/**
 * Lists that grow with what a caller wrote (warnings for 2 500 unknown fields made a 263 KB
 * answer) are cut like problems are: the first `max` entries, each at most `maxChars` long,
 * then one final entry that says how many were left out ("… N more").
 */
export const MAX_LISTED_WARNINGS = 50;
export const MAX_WARNING_CHARS = 500;

const clipped = (text: string, maxChars: number): string => (text.length > maxChars ? `${text.slice(0, maxChars)}…` : text);

export function capMessages(items: readonly string[], max = MAX_LISTED_WARNINGS, maxChars = MAX_WARNING_CHARS): string[] {
  const kept = items.slice(0, max).map((item) => clipped(item, maxChars));
  if (items.length > max) kept.push(`… ${items.length - max} more`);
  return kept;
}

/** The same for `{path, line?, message}` findings; the last entry carries the first left-out one's path. */
export function capFindings<T extends { path: string; message: string }>(
  items: readonly T[],
  max = MAX_LISTED_WARNINGS,
  maxChars = MAX_WARNING_CHARS,
): T[] {
  const kept = items.slice(0, max).map((item) => ({ ...item, message: clipped(item.message, maxChars) }));
  const first = items[max];
  if (first !== undefined) kept.push({ path: first.path, message: `… ${items.length - max} more` } as T);
  return kept;
}
