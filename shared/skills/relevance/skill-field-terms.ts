import { termsOf } from "./relevance-terms.js";

/** What the relevance index reads of a skill (a listing entry, or a definition as a level snapshot keeps it). */
export interface IndexableSkill {
  readonly name: string;
  readonly description: string;
  readonly whenToUse?: string | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly searchText?: string | undefined;
}

/**
 * The version of what skillFieldTerms gives for a skill: field texts, caps, compounds, and
 * relevance-terms.ts. Terms stored in a level snapshot under another version are not used (the
 * index tokenizes the skill again). Move it with ANY change that can change a skill's terms;
 * test/unit/relevance-stored-terms.test.ts pins the terms of a corpus to this number.
 */
export const FIELD_TERMS_VERSION = 1;

/** Indexed fields, in order: name, tags, description, when_to_use, searchText keywords (headings, tools), searchText prose. */
export const FIELD_COUNT = 6;

export type FieldCompounds = "all" | "joined" | "none";

/** Per field: adjacent words also as one term — every pair (`all`), only those written together (`joined`), or none. */
export const FIELD_COMPOUNDS: readonly FieldCompounds[] = ["all", "all", "joined", "joined", "joined", "none"];

/** Characters of each field indexed at most: 10 000 skills of 1 KB descriptions stay within budget. */
const MAX_FIELD_CHARS = 4_096;

/** The terms of one field's text, compounds after the words; remembered words: skill texts are read again by every build. */
export function fieldTerms(text: string, compounds: FieldCompounds): string[] {
  if (compounds === "none") return termsOf(text, { remember: true });
  const joined: string[] = [];
  const terms = termsOf(text, { compounds: joined, joinedOnly: compounds === "joined", remember: true });
  for (const c of joined) terms.push(c);
  return terms;
}

/** The terms of each field of `skill`, in field order: what the index counts, and what a level snapshot stores. */
export function skillFieldTerms(skill: IndexableSkill): string[][] {
  const texts = fieldTexts(skill);
  return texts.map((text, f) => fieldTerms(text, FIELD_COMPOUNDS[f]!));
}

const cap = (text: string | undefined): string =>
  text === undefined ? "" : text.length > MAX_FIELD_CHARS ? text.slice(0, MAX_FIELD_CHARS) : text;

/** The texts of each field, in field order; `searchText`'s first two lines are keywords, the rest prose. */
export function fieldTexts(skill: IndexableSkill): string[] {
  const search = skill.searchText ?? "";
  const second = search.indexOf("\n", search.indexOf("\n") + 1);
  const keywords = second === -1 ? search : search.slice(0, second);
  const prose = second === -1 ? "" : search.slice(second + 1);
  return [skill.name, cap((skill.tags ?? []).join(" , ")), cap(skill.description), cap(skill.whenToUse), cap(keywords), cap(prose)];
}
