import type { DocumentPreparer, PreparedLevel } from "../documents/cascade-layers.js";
import { relevanceTermsExtras } from "./relevance/relevance-terms-extras.js";
import { patternLiteralsExtras } from "./triggers/pattern-literals-extras.js";

type LevelExtras = NonNullable<DocumentPreparer["levelExtras"]>;

/** Each part stores an object under keys of its own (`patternLiterals`, `relevanceTerms`), and reads only those. */
const PARTS: readonly LevelExtras[] = [patternLiteralsExtras, relevanceTermsExtras];

/** What a skill level snapshot stores besides the outcomes: PATTERN literals and relevance terms. */
export const skillLevelExtras: LevelExtras = {
  of(level: PreparedLevel): unknown {
    let extras: Record<string, unknown> | undefined;
    for (const part of PARTS) {
      const made = part.of(level);
      if (made !== undefined) extras = { ...extras, ...(made as Record<string, unknown>) };
    }
    return extras;
  },
  use(extras: unknown, level: PreparedLevel): void {
    for (const part of PARTS) part.use(extras, level);
  },
};
