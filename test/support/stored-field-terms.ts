import type { IndexableSkill } from "../../shared/skills/relevance/relevance-index.js";
import { attachFieldTerms, encodeLevelFieldTerms, LevelFieldTerms } from "../../shared/skills/relevance/stored-field-terms.js";

/**
 * Stores the field terms of one level's skills as its level snapshot does (one dictionary, one code
 * per skill) and attaches them to those skill objects, as reading the snapshot attaches them to its
 * definitions. Returns the level's terms.
 */
export function storeLevelTerms(level: readonly IndexableSkill[]): LevelFieldTerms {
  const encoded = encodeLevelFieldTerms(level);
  if (encoded === undefined) throw new Error("level terms not encodable");
  const terms = new LevelFieldTerms(encoded.dictionary);
  level.forEach((skill, i) => attachFieldTerms(skill, { level: terms, code: encoded.codes[i]! }));
  return terms;
}

/** Copies of `skills`, each in level `levelOf(position)` with that level's stored terms attached. */
export function withStoredTerms(skills: readonly IndexableSkill[], levelOf: (position: number) => number): IndexableSkill[] {
  const copies = skills.map((skill) => ({ ...skill }));
  const levels = new Map<number, IndexableSkill[]>();
  copies.forEach((copy, i) => {
    const level = levels.get(levelOf(i));
    if (level === undefined) levels.set(levelOf(i), [copy]);
    else level.push(copy);
  });
  for (const level of levels.values()) storeLevelTerms(level);
  return copies;
}
