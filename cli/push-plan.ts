import { SKILLS_PREFIX } from "../shared/skills/skill-paths.js";
import type { DocumentEntry } from "../client/index.js";
import { SKILL_DOCUMENT } from "./skill-tree.js";
import type { LocalFile, LocalSkill } from "./skill-tree.js";
import type { ValidationLine } from "./validate.js";

/**
 * What `skills push` does with each skill, decided before any write (docs/decisions.md, "skills
 * push and pull"). A refused skill gets no request at all, so nothing of it is saved. An accepted
 * one uploads its changed siblings first and its SKILL.md last: the server then finds every file
 * the SKILL.md refers to, and the skill never appears in a listing before its files.
 */

export interface CheckedSkill {
  skill: LocalSkill;
  /** The local validation of its SKILL.md (checkSkillDocument). */
  problems: ValidationLine[];
  /** MD5 hex of each file's bytes, by relative path: the ETag S3 gives a single-part upload. */
  etags: ReadonlyMap<string, string>;
}

export interface PlannedFile extends LocalFile {
  etag: string;
  /** The level held no document at this path before the push (so a rollback may delete it). */
  isNew: boolean;
}

export interface PlannedSkill {
  name: string;
  directory: string;
  /** Siblings in path order, then SKILL.md if it changed. */
  uploads: PlannedFile[];
  unchanged: PlannedFile[];
}

export interface RefusedSkill {
  name: string;
  directory: string;
  reasons: string[];
}

export interface PushPlan {
  planned: PlannedSkill[];
  refused: RefusedSkill[];
}

const fold = (name: string): string => name.toLowerCase();

/** Names of the skills already on the level: `_vance/skills/<name>/SKILL.md`. */
function remoteSkillNames(remote: readonly DocumentEntry[]): string[] {
  const names = new Set<string>();
  for (const { path } of remote) {
    const rest = path.startsWith(SKILLS_PREFIX) ? path.slice(SKILLS_PREFIX.length) : undefined;
    const slash = rest?.indexOf("/") ?? -1;
    if (rest !== undefined && slash > 0 && rest.slice(slash + 1) === SKILL_DOCUMENT) names.add(rest.slice(0, slash));
  }
  return [...names];
}

function collisionReasons(
  checked: readonly CheckedSkill[],
  remote: readonly DocumentEntry[],
  show: (directory: string) => string,
): Map<LocalSkill, string> {
  const reasons = new Map<LocalSkill, string>();
  const byFolded = new Map<string, LocalSkill[]>();
  for (const { skill } of checked) byFolded.set(fold(skill.name), [...(byFolded.get(fold(skill.name)) ?? []), skill]);
  for (const group of byFolded.values()) {
    if (group.length < 2) continue;
    for (const skill of group) {
      const others = group.filter((s) => s !== skill);
      const listed = others.map((s) => `'${s.name}' (${show(s.directory)})`).join(", ");
      reasons.set(
        skill,
        others.every((s) => s.name === skill.name)
          ? `name '${skill.name}' is also the name of ${listed}; a level holds one skill per name; rename one folder`
          : `name '${skill.name}' collides with ${listed} after case folding; skill names must differ in more than case; rename one folder`,
      );
    }
  }
  // The level is one namespace: a pushed `Foo` next to a stored `foo` would be two skills that
  // case-insensitive file systems and tool names cannot tell apart.
  const stored = new Map(remoteSkillNames(remote).map((name) => [fold(name), name]));
  for (const { skill } of checked) {
    const existing = stored.get(fold(skill.name));
    if (existing !== undefined && existing !== skill.name && !reasons.has(skill)) {
      reasons.set(
        skill,
        `name '${skill.name}' collides with '${existing}', already on the level, after case folding; rename the folder or delete '${existing}'`,
      );
    }
  }
  return reasons;
}

/** `show` renders a directory in messages (the CLI: relative to the working directory). */
export function planPush(
  checked: readonly CheckedSkill[],
  remote: readonly DocumentEntry[],
  show: (directory: string) => string = (d) => d,
): PushPlan {
  const remoteEtags = new Map(remote.map((d) => [d.path, d.etag]));
  const collisions = collisionReasons(checked, remote, show);
  const planned: PlannedSkill[] = [];
  const refused: RefusedSkill[] = [];
  for (const { skill, problems, etags } of checked) {
    const reasons = [...skill.refusals];
    if (!skill.files.some((f) => f.relative === SKILL_DOCUMENT))
      reasons.push(`${SKILL_DOCUMENT} was skipped (see the warnings above), so this is not a skill`);
    const collision = collisions.get(skill);
    if (collision) reasons.push(collision);
    reasons.push(...problems.filter((p) => p.severity === "error").map((p) => `${p.file}:${p.line ?? 1}: ${p.message}`));
    if (reasons.length > 0) {
      refused.push({ name: skill.name, directory: skill.directory, reasons });
      continue;
    }
    const files = skill.files.map((file): PlannedFile => {
      const etag = etags.get(file.relative);
      if (etag === undefined) throw new Error(`no ETag computed for ${file.absolute}`);
      return { ...file, etag, isNew: !remoteEtags.has(file.documentPath) };
    });
    const changed = (f: PlannedFile): boolean => remoteEtags.get(f.documentPath) !== f.etag;
    const siblings = files.filter((f) => f.relative !== SKILL_DOCUMENT).sort((a, b) => (a.relative < b.relative ? -1 : 1));
    const document = files.filter((f) => f.relative === SKILL_DOCUMENT);
    const ordered = [...siblings, ...document];
    planned.push({
      name: skill.name,
      directory: skill.directory,
      uploads: ordered.filter(changed),
      unchanged: ordered.filter((f) => !changed(f)),
    });
  }
  return { planned, refused };
}
