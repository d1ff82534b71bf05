import { lstat, readdir, realpath, stat } from "node:fs/promises";
import { basename, join, relative, resolve, sep } from "node:path";
import { validateDocumentPath } from "../shared/documents/document-path.js";
import { SKILLS_PREFIX } from "../shared/skills/skill-paths.js";
import { MAX_DOCUMENT_BYTES } from "../shared/app/document-limits.js";

/**
 * The skills of a folder on disk, as `skills push` uploads them (docs/decisions.md, "skills push
 * and pull"): every directory holding a SKILL.md is one skill, named by its directory; its files
 * are its subtree minus the subtrees of skills nested in it. Nothing here reads file contents.
 */

export const SKILL_DOCUMENT = "SKILL.md";

export interface TreeLimits {
  /** Files one skill may bring (SKILL.md included). */
  maxFilesPerSkill: number;
  /** The documents route refuses larger bodies (MAX_DOCUMENT_BYTES), so the push refuses them first. */
  maxFileBytes: number;
  /** Directory levels below the pushed folder that are searched. */
  maxDepth: number;
  /** Entries (files, directories, links) looked at in one push, so a mistaken `push ~` ends quickly. */
  maxEntries: number;
}

export const DEFAULT_TREE_LIMITS: TreeLimits = {
  maxFilesPerSkill: 1_000,
  maxFileBytes: MAX_DOCUMENT_BYTES,
  maxDepth: 32,
  maxEntries: 100_000,
};

export interface LocalFile {
  /** Relative to the skill directory, `/`-separated, e.g. `references/api.md`. */
  relative: string;
  /** Where to read it (a link that stays inside the folder is read through). */
  absolute: string;
  size: number;
  /** Permission bits (e.g. 0o755 for a script), sent with the upload so a pull restores them. */
  mode: number;
  /** `_vance/skills/<name>/<relative>`. */
  documentPath: string;
}

export interface LocalSkill {
  name: string;
  directory: string;
  files: LocalFile[];
  /** Why the skill may not be uploaded at all; empty when it may. */
  refusals: string[];
}

export interface SkillTree {
  skills: LocalSkill[];
  /** Things skipped without refusing a skill (links leaving the folder, hidden files, …). */
  warnings: string[];
}

export class TreeTooLarge extends Error {}

/** Hidden entries (`.git`, `.env`, `.DS_Store`) and `node_modules` are never part of a skill. */
const ignored = (name: string): boolean => name.startsWith(".") || name === "node_modules";

const inside = (root: string, path: string): boolean => path === root || path.startsWith(root + sep);

export async function scanSkillTree(dir: string, limits: TreeLimits = DEFAULT_TREE_LIMITS, cwd = process.cwd()): Promise<SkillTree> {
  const rootInfo = await stat(dir).catch(() => undefined);
  if (!rootInfo?.isDirectory()) throw new Error(`'${dir}' is not a directory`);
  const realRoot = await realpath(dir);
  const shown = (path: string): string => relative(cwd, path) || path;
  const skills: LocalSkill[] = [];
  const warnings: string[] = [];
  let entries = 0;
  const capped = new Set<LocalSkill>();

  const addFile = (skill: LocalSkill, absolute: string, size: number, mode: number): void => {
    const rel = relative(skill.directory, absolute).split(sep).join("/");
    if (skill.files.length >= limits.maxFilesPerSkill) {
      // Reported once; the rest of the subtree is still walked (bounded by maxEntries) but not kept.
      if (!capped.has(skill))
        skill.refusals.push(
          `holds more than ${limits.maxFilesPerSkill} files (the most one push uploads per skill); split it or remove files`,
        );
      capped.add(skill);
      return;
    }
    if (size > limits.maxFileBytes) {
      skill.refusals.push(
        `${shown(absolute)}: ${size} bytes, more than the ${limits.maxFileBytes} a document may hold; remove it or keep it elsewhere`,
      );
    }
    const documentPath = `${SKILLS_PREFIX}${skill.name}/${rel}`;
    try {
      validateDocumentPath(documentPath);
    } catch (error) {
      skill.refusals.push(
        `${shown(absolute)}: not a safe document path: ${error instanceof Error ? error.message : String(error)}; rename it`,
      );
    }
    skill.files.push({ relative: rel, absolute, size, mode: mode & 0o777, documentPath });
  };

  async function walk(directory: string, depth: number, owner: LocalSkill | undefined): Promise<void> {
    const listing = await readdir(directory, { withFileTypes: true });
    entries += listing.length;
    if (entries > limits.maxEntries) throw new TreeTooLarge(`'${dir}' holds more than ${limits.maxEntries} entries; push a smaller folder`);
    let skill = owner;
    const document = listing.find((e) => e.name === SKILL_DOCUMENT);
    if (document && (document.isFile() || document.isSymbolicLink())) {
      skill = { name: basename(directory), directory, files: [], refusals: [] };
      skills.push(skill);
    }
    const sorted = [...listing].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of sorted) {
      if (ignored(entry.name)) continue;
      const path = join(directory, entry.name);
      if (entry.isSymbolicLink()) {
        const target = await realpath(path).catch(() => undefined);
        const info = target === undefined ? undefined : await stat(target).catch(() => undefined);
        if (target === undefined || !info) warnings.push(`${shown(path)}: skipped, a link whose target does not exist`);
        else if (!inside(realRoot, target)) warnings.push(`${shown(path)}: skipped, a link that points outside '${dir}'`);
        else if (!info.isFile()) warnings.push(`${shown(path)}: skipped, a link to a directory (links are followed to files only)`);
        else if (skill) addFile(skill, path, info.size, info.mode);
        continue;
      }
      if (entry.isDirectory()) {
        if (depth >= limits.maxDepth) {
          if (skill) skill.refusals.push(`${shown(path)}: deeper than ${limits.maxDepth} levels below '${dir}'; flatten the tree`);
          else warnings.push(`${shown(path)}: not searched, deeper than ${limits.maxDepth} levels`);
          continue;
        }
        await walk(path, depth + 1, skill);
      } else if (entry.isFile() && skill) {
        const info = await lstat(path);
        addFile(skill, path, info.size, info.mode);
      }
    }
  }

  await walk(resolve(dir), 0, undefined);
  return { skills, warnings };
}
