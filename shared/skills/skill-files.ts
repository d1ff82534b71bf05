import type { DocumentProblem } from "../errors.js";
import type { DocumentLayer, DocumentRef } from "../documents/document-store.js";
import { SKILL_DOCUMENT_NAME, SKILLS_PREFIX, skillDirectory, skillDocumentPath } from "./skill-paths.js";

/** One sibling file of a skill (API.md "Skill files"): path relative to the skill directory, size in bytes. */
export interface SkillFile {
  readonly path: string;
  readonly size: number;
  /** The listing's ETag: a stored digest counts only for the bytes it was taken of (issue 32). */
  readonly etag?: string | undefined;
}

/**
 * Files listed per skill. A 10 000-file folder must not blow up a listing, the detail answer or
 * the warm catalogue's memory; beyond it the skill carries a warning and the rest is left out.
 */
export const MAX_SKILL_FILES = 1000;

/** Bytes one `skill_read_file` returns at most: a tool result goes into a prompt, 256 KiB is already a big one. */
export const MAX_SKILL_READ_BYTES = 256 * 1024;

/** The files of one skill directory in one layer: sorted by path, capped, with the uncapped count. */
export interface SkillFileListing {
  readonly files: readonly SkillFile[];
  /** How many files the directory holds (SKILL.md excluded), listed or not. */
  readonly total: number;
}

const EMPTY: SkillFileListing = Object.freeze({ files: Object.freeze([]) as readonly SkillFile[], total: 0 });

const byCodePoint = (a: SkillFile, b: SkillFile): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * Every skill directory of a layer's listing, computed in ONE pass over the listing and kept per
 * listing object: the warm catalogue hands out the same listing while a level is unchanged, so a
 * steady turn never groups again and never asks the store (the files are cached with the catalogue).
 */
const indexes = new WeakMap<ReadonlyMap<string, DocumentRef>, ReadonlyMap<string, SkillFileListing>>();

function indexOf(listing: ReadonlyMap<string, DocumentRef>): ReadonlyMap<string, SkillFileListing> {
  const known = indexes.get(listing);
  if (known) return known;
  const index = groupByDirectory(listing.values());
  indexes.set(listing, index);
  return index;
}

function groupByDirectory(refs: Iterable<DocumentRef>): Map<string, SkillFileListing> {
  const grouped = new Map<string, SkillFile[]>();
  for (const ref of refs) {
    const full = ref.path;
    if (!full.startsWith(SKILLS_PREFIX)) continue;
    const slash = full.indexOf("/", SKILLS_PREFIX.length);
    if (slash <= SKILLS_PREFIX.length) continue;
    // Only the directory's own SKILL.md is the document; a nested one (`sub/SKILL.md`) is a file.
    // Told from the full path: most entries are SKILL.md, and they need no substring.
    const rest = full.length - slash - 1;
    if (rest === 0 || (rest === SKILL_DOCUMENT_NAME.length && full.endsWith(SKILL_DOCUMENT_NAME))) continue;
    const name = full.slice(SKILLS_PREFIX.length, slash);
    const path = full.slice(slash + 1);
    let files = grouped.get(name);
    if (!files) grouped.set(name, (files = []));
    files.push({ path, size: ref.size, etag: ref.etag });
  }
  const index = new Map<string, SkillFileListing>();
  for (const [name, files] of grouped) {
    files.sort(byCodePoint);
    const kept = files.length > MAX_SKILL_FILES ? files.slice(0, MAX_SKILL_FILES) : files;
    index.set(name, Object.freeze({ files: Object.freeze(kept.map((f) => Object.freeze(f))), total: files.length }));
  }
  return index;
}

/** The files of skill `name` in a layer listing (a catalogue's `_vance/` or a scan's `_vance/skills/`). */
export function skillFilesFromListing(listing: ReadonlyMap<string, DocumentRef>, name: string): SkillFileListing {
  return indexOf(listing).get(name) ?? EMPTY;
}

/** Without a listing (a plain store, one lookup): one list call of that skill's directory. */
export async function skillFilesFromLayer(layer: DocumentLayer, name: string): Promise<SkillFileListing> {
  return groupByDirectory(await layer.list(`${skillDirectory(name)}/`)).get(name) ?? EMPTY;
}

/** The warning a skill carries when its directory holds more files than are listed. */
export function skillFilesWarning(name: string, listing: SkillFileListing): DocumentProblem | undefined {
  if (listing.total <= listing.files.length) return undefined;
  return {
    path: skillDocumentPath(name),
    message: `the skill directory holds ${listing.total} files; only the first ${listing.files.length} by path are listed and readable with skill_read_file`,
    severity: "warning",
  };
}

export type SkillFileMatch = { kind: "found"; file: SkillFile } | { kind: "absent" } | { kind: "ambiguous"; candidates: string[] };

/**
 * The listed file a requested (already checked) path names: the exact path, else the one file
 * that equals it ignoring case (bodies written on macOS or Windows link `FORMS.md` where the file
 * is `forms.md`). Two case-insensitive matches are ambiguous: guessing would serve the wrong file.
 */
export function matchSkillFile(files: readonly SkillFile[], requested: string): SkillFileMatch {
  const exact = files.find((f) => f.path === requested);
  if (exact) return { kind: "found", file: exact };
  const folded = requested.toLowerCase();
  const matches = files.filter((f) => f.path.toLowerCase() === folded);
  if (matches.length === 1) return { kind: "found", file: matches[0]! };
  if (matches.length > 1) return { kind: "ambiguous", candidates: matches.map((f) => f.path) };
  return { kind: "absent" };
}
