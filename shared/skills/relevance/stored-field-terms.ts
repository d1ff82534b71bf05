import { listedDefinitionOf } from "../../documents/cascade-resolver.js";
import { FIELD_COUNT, skillFieldTerms, type IndexableSkill } from "./skill-field-terms.js";

/**
 * A level's skill field terms computed when its snapshot is written (issue 27), so a cold
 * instance's index build reads numbers instead of tokenizing every field of every skill.
 *
 * Stored compactly: each distinct term of the level once (the dictionary, one string, terms
 * separated by a space, most frequent first), and per skill one string of its six fields' term
 * ids in order, fields separated by a space. An id is written in printable ASCII that JSON keeps
 * as it is: base-34 digits `]`..`~` (any number, most significant first) then one base-57 digit
 * `#`..`[` that ends it. Frequent terms take one character, the first 1 938 at most two.
 * One string per skill parses in one step and a code allocates nothing to read.
 */
export class LevelFieldTerms {
  private dictionary: readonly string[] | null | undefined;

  constructor(private readonly joined: string) {}

  /** The level's terms by id; undefined when the dictionary is malformed (every skill of the level is then tokenized). */
  terms(): readonly string[] | undefined {
    if (this.dictionary === undefined) this.dictionary = dictionaryOf(this.joined);
    return this.dictionary ?? undefined;
  }
}

function dictionaryOf(joined: string): readonly string[] | null {
  if (joined === "") return [];
  const terms = joined.split(" ");
  for (let i = 0; i < terms.length; i++) if (terms[i] === "") return null;
  return terms;
}

/** One skill's stored terms: its level's dictionary and its code. */
export interface StoredFieldTerms {
  readonly level: LevelFieldTerms;
  readonly code: string;
}

/** Per definition as a level snapshot keeps it: the terms stored for it. */
const storedTerms = new WeakMap<object, StoredFieldTerms>();

/**
 * The terms stored for `skill`: those of the definition a scan made it from (a listing entry has
 * that definition's field texts), else its own. A copy of an entry (`{ ...skill, name }`) has neither.
 */
export function storedFieldTermsOf(skill: object): StoredFieldTerms | undefined {
  const definition = listedDefinitionOf(skill);
  return storedTerms.get(typeof definition === "object" && definition !== null ? definition : skill);
}

export function attachFieldTerms(definition: object, terms: StoredFieldTerms): void {
  storedTerms.set(definition, terms);
}

const SEPARATOR = 0x20;
const FINAL_FIRST = 0x23; // '#'
const FINAL_LAST = 0x5b; // '['
const MORE_FIRST = 0x5d; // ']': 0x5c, a backslash, JSON would escape
const MORE_LAST = 0x7e; // '~'
const FINAL_BASE = FINAL_LAST - FINAL_FIRST + 1;
const MORE_BASE = MORE_LAST - MORE_FIRST + 1;
/** Leading digits of one id at most: 34^4 × 57 ids is far beyond any level. */
const MAX_MORE_DIGITS = 4;

/**
 * The field terms of `skills` (one level) as a dictionary and one code per skill. Undefined when a
 * term could not be written (it holds a space: terms never do, but the dictionary must not break).
 */
export function encodeLevelFieldTerms(skills: readonly IndexableSkill[]): { dictionary: string; codes: string[] } | undefined {
  const fieldsOf = skills.map(skillFieldTerms);
  const counts = new Map<string, number>();
  for (const fields of fieldsOf) for (const terms of fields) for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  // Most frequent first (the shortest codes); ties in order of first appearance (a Map keeps it, sort is stable).
  const ordered = [...counts].sort((a, b) => b[1] - a[1]).map(([term]) => term);
  const codeOf = new Map<string, string>();
  for (let id = 0; id < ordered.length; id++) {
    if (ordered[id]!.includes(" ") || ordered[id] === "") return undefined;
    codeOf.set(ordered[id]!, idCode(id));
  }
  const codes = fieldsOf.map((fields) => {
    let code = "";
    for (let f = 0; f < fields.length; f++) {
      if (f > 0) code += " ";
      for (const term of fields[f]!) code += codeOf.get(term)!;
    }
    return code;
  });
  return { dictionary: ordered.join(" "), codes };
}

function idCode(id: number): string {
  let code = String.fromCharCode(FINAL_FIRST + (id % FINAL_BASE));
  for (let rest = Math.floor(id / FINAL_BASE); rest > 0; rest = Math.floor(rest / MORE_BASE))
    code = String.fromCharCode(MORE_FIRST + (rest % MORE_BASE)) + code;
  return code;
}

/**
 * Reads a skill's code into `ids` (dictionary ids, fields one after another) and `ends` (where
 * each field ends in `ids`). False for a code of another shape (a character outside the code, an
 * unfinished id, not six fields) or an id outside the dictionary: the skill is then tokenized.
 */
export function decodeFieldTerms(code: string, dictionarySize: number, ids: number[], ends: number[]): boolean {
  ids.length = 0;
  let field = 0;
  let pending = 0;
  let digits = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (c >= FINAL_FIRST && c <= FINAL_LAST) {
      const id = pending * FINAL_BASE + (c - FINAL_FIRST);
      if (id >= dictionarySize) return false;
      ids.push(id);
      pending = 0;
      digits = 0;
    } else if (c >= MORE_FIRST && c <= MORE_LAST && digits < MAX_MORE_DIGITS) {
      pending = pending * MORE_BASE + (c - MORE_FIRST);
      digits += 1;
    } else if (c === SEPARATOR && digits === 0 && field < FIELD_COUNT - 1) {
      ends[field++] = ids.length;
    } else return false;
  }
  if (digits !== 0 || field !== FIELD_COUNT - 1) return false;
  ends[field] = ids.length;
  return true;
}
