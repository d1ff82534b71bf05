import type { DocumentPreparer, PreparedLevel } from "../../documents/cascade-layers.js";
import { skillDirectoryNameOf } from "../skill-paths.js";
import { FIELD_TERMS_VERSION, type IndexableSkill } from "./skill-field-terms.js";
import { attachFieldTerms, encodeLevelFieldTerms, LevelFieldTerms } from "./stored-field-terms.js";

/**
 * The relevance terms of every skill of a level, stored in its level snapshot (issue 27): a cold
 * instance's first ranked turn builds the index of the whole listing, and tokenizing every field
 * of 10 000 skills was most of that build. Stored as
 * `{ relevanceTerms: { version, dictionary, docs: [refIndex, code, refIndex, code, …] } }`
 * (stored-field-terms.ts); `use` attaches each code to the definition it was made from, and the
 * listing entry made from that definition carries it (skill-loader.ts materializeListed).
 *
 * Untrusted on the way in: another FIELD_TERMS_VERSION or a wrong shape attaches nothing, and a
 * code or dictionary the index cannot read is tokenized again (RelevanceIndex.build).
 */
export const relevanceTermsExtras: NonNullable<DocumentPreparer["levelExtras"]> = {
  of({ refs, prepared }: PreparedLevel): unknown {
    const indexes: number[] = [];
    const skills: IndexableSkill[] = [];
    refs.forEach((ref, index) => {
      const outcome = skillDirectoryNameOf(ref.path) === undefined ? undefined : prepared.get(ref.path);
      if (outcome === undefined || outcome.etag !== ref.etag || !outcome.outcome.ok || !indexable(outcome.outcome.definition)) return;
      indexes.push(index);
      skills.push(outcome.outcome.definition);
    });
    if (skills.length === 0) return undefined;
    const encoded = encodeLevelFieldTerms(skills);
    if (encoded === undefined) return undefined;
    // The writer's own index build reads them too (the definitions are the ones it lists).
    const level = new LevelFieldTerms(encoded.dictionary);
    skills.forEach((skill, i) => attachFieldTerms(skill, { level, code: encoded.codes[i]! }));
    const docs: (number | string)[] = [];
    indexes.forEach((index, i) => docs.push(index, encoded.codes[i]!));
    return { relevanceTerms: { version: FIELD_TERMS_VERSION, dictionary: encoded.dictionary, docs } };
  },
  use(extras: unknown, { refs, prepared }: PreparedLevel): void {
    const stored = (extras as { relevanceTerms?: { version?: unknown; dictionary?: unknown; docs?: unknown } } | null)?.relevanceTerms;
    if (stored?.version !== FIELD_TERMS_VERSION || typeof stored.dictionary !== "string" || !Array.isArray(stored.docs)) return;
    const docs = stored.docs as unknown[];
    const level = new LevelFieldTerms(stored.dictionary);
    for (let i = 0; i + 1 < docs.length; i += 2) {
      const index = docs[i];
      const code = docs[i + 1];
      if (typeof index !== "number" || typeof code !== "string") continue;
      const ref = refs[index];
      const outcome = ref === undefined ? undefined : prepared.get(ref.path);
      if (outcome === undefined || outcome.etag !== ref!.etag || !outcome.outcome.ok) continue;
      const definition = outcome.outcome.definition;
      if (typeof definition === "object" && definition !== null) attachFieldTerms(definition, { level, code });
    }
  },
};

/** A definition the index can read (the parser's always is; a stored one is checked, since `of` must not throw). */
function indexable(definition: unknown): definition is IndexableSkill {
  const d = definition as Partial<Record<keyof IndexableSkill, unknown>> | null;
  return (
    typeof d === "object" &&
    d !== null &&
    typeof d.name === "string" &&
    typeof d.description === "string" &&
    (d.whenToUse === undefined || typeof d.whenToUse === "string") &&
    (d.searchText === undefined || typeof d.searchText === "string") &&
    (d.tags === undefined || (Array.isArray(d.tags) && d.tags.every((tag) => typeof tag === "string")))
  );
}
