import type { DocumentPreparer, PreparedLevel } from "../../documents/cascade-layers.js";
import { memoizedRequiredLiterals, rememberRequiredLiterals } from "./pattern-prefilter.js";
import { rememberUnkeyedFacts, storedUnkeyedFacts } from "./unkeyed-pattern-facts.js";

/**
 * The required literals of every PATTERN trigger of a level, stored in its level snapshot (issue
 * 27): finding them takes a full regex compile per pattern, which was most of a cold first turn's
 * trigger index at 1 000 skills. A cold instance installs them into the per-process memo, so its
 * trigger index compiles only the patterns a message's literals reach. A pattern without literals
 * also gets its unkeyed facts (required characters and program size, unkeyed-pattern-facts.ts),
 * so it too is compiled only when a message holds those characters. Stored as
 * `{ patternLiterals: [[pattern, literals | null, facts?], …] }`; a pattern missing or of a wrong
 * shape is simply analyzed again (older snapshots have no facts).
 */
export const patternLiteralsExtras: NonNullable<DocumentPreparer["levelExtras"]> = {
  of({ prepared }: PreparedLevel): unknown {
    const patterns = new Set<string>();
    for (const { outcome } of prepared.values()) {
      if (!outcome.ok) continue;
      const triggers = (outcome.definition as { triggers?: readonly { type?: unknown; pattern?: unknown }[] }).triggers ?? [];
      for (const trigger of triggers) if (trigger.type === "PATTERN" && typeof trigger.pattern === "string") patterns.add(trigger.pattern);
    }
    return patterns.size === 0 ? undefined : { patternLiterals: [...patterns].map(storedEntry) };
  },
  use(extras: unknown): void {
    const entries = (extras as { patternLiterals?: unknown } | null)?.patternLiterals;
    if (!Array.isArray(entries)) return;
    for (const entry of entries) {
      if (!Array.isArray(entry) || typeof entry[0] !== "string") continue;
      rememberRequiredLiterals(entry[0], entry[1]);
      if (entry[2] !== undefined) rememberUnkeyedFacts(entry[0], entry[2]);
    }
  },
};

function storedEntry(pattern: string): unknown[] {
  const literals = memoizedRequiredLiterals(pattern);
  if (literals !== undefined) return [pattern, literals];
  const facts = storedUnkeyedFacts(pattern);
  return facts === undefined ? [pattern, null] : [pattern, null, facts];
}
