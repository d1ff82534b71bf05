import { basename, dirname, relative, sep } from "node:path";
import { byPathThenLine, findSkillDocuments, inspectSkillDocument, type ValidationLine, type ValidationReport } from "./validate.js";

/**
 * `skills validate --level <name>=<dir> …`: several folders checked as the levels of one cascade,
 * innermost first (docs/decisions.md, "Shadowing made visible"). Every SKILL.md is checked as
 * without `--level`; on top, a skill name found in more than one level gets `info` lines saying
 * which document the service would use and which ones it hides, by the service's own rule: the
 * innermost usable document wins, `enabled: false` hides the name from every outer level, and a
 * document with errors shadows nothing (the service skips it and falls through).
 */

export interface LevelRoot {
  /** As written on the command line, e.g. `project`; shown in the info lines. */
  name: string;
  dir: string;
}

/** The service's levels, inner first; other names are free labels in command-line order. */
const CASCADE_ORDER = ["user", "project", "tenant", "resource"];
const LEVEL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,39}$/;

/** A `--level` value that cannot be used; the command turns it into a usage error. */
export class LevelRootError extends Error {}

/** `user=./u` … in command-line order (inner first). Refuses a malformed value, a repeated name, or known names out of cascade order. */
export function parseLevelRoots(values: readonly string[]): LevelRoot[] {
  const levels: LevelRoot[] = [];
  for (const value of values) {
    const at = value.indexOf("=");
    const name = at < 0 ? "" : value.slice(0, at);
    const dir = at < 0 ? "" : value.slice(at + 1);
    if (!LEVEL_NAME.test(name) || dir === "")
      throw new LevelRootError(`--level must be <name>=<dir> (e.g. project=./skills), got '${value.slice(0, 80)}'`);
    if (levels.some((l) => l.name.toLowerCase() === name.toLowerCase())) throw new LevelRootError(`--level '${name}' is given twice`);
    levels.push({ name, dir });
  }
  const known = levels.map((l) => CASCADE_ORDER.indexOf(l.name.toLowerCase())).filter((rank) => rank >= 0);
  if (known.some((rank, i) => i > 0 && rank < known[i - 1]!)) {
    throw new LevelRootError(
      `--level: give the levels inner first (${CASCADE_ORDER.join(", ")}), got ${levels.map((l) => l.name).join(", ")}`,
    );
  }
  return levels;
}

interface LevelDocument {
  level: string;
  /** The path lines cite (relative to the working directory). */
  shown: string;
  /** `<level>/<path inside the level's folder>`, e.g. `tenant/alpha/SKILL.md`. */
  label: string;
  usable: boolean;
  enabled: boolean;
}

const slashed = (path: string): string => path.split(sep).join("/");

/** Validates every level's folder and reports cross-level shadowing as `info` lines on the document that decides. */
export async function validateLevelReport(levels: readonly LevelRoot[], cwd = process.cwd()): Promise<ValidationReport> {
  const lines: ValidationLine[] = [];
  // name → its documents, inner level first (a level's own repeats keep their path order).
  const byName = new Map<string, LevelDocument[]>();
  let skills = 0;
  for (const level of levels) {
    for (const file of await findSkillDocuments(level.dir)) {
      skills += 1;
      const shown = relative(cwd, file) || file;
      const inspected = await inspectSkillDocument(file, shown);
      lines.push(...inspected.lines);
      const name = basename(dirname(file));
      const docs = byName.get(name) ?? [];
      docs.push({
        level: level.name,
        shown,
        label: `${level.name}/${slashed(relative(level.dir, file))}`,
        usable: inspected.usable,
        enabled: inspected.enabled,
      });
      byName.set(name, docs);
    }
  }
  for (const docs of byName.values()) lines.push(...shadowLines(docs));
  return { skills, lines: lines.sort(byPathThenLine) };
}

/** The lines for one name's documents across levels: nothing unless it appears in more than one level. */
function shadowLines(docs: readonly LevelDocument[]): ValidationLine[] {
  if (new Set(docs.map((d) => d.level)).size < 2) return [];
  const info = (file: string, message: string): ValidationLine => ({ file, line: 1, severity: "info", message, listed: true });
  const lines: ValidationLine[] = [];
  const winner = docs.findIndex((d) => d.usable);
  // Every document before the winner has errors: it hides nothing, the service skips it and falls through.
  for (const [i, doc] of docs.slice(0, winner < 0 ? docs.length : winner).entries()) {
    const outer = docs.find((d, j) => j > i && d.level !== doc.level);
    if (outer)
      lines.push(info(doc.shown, `does not shadow ${outer.label}: this document has errors, so the service skips it and falls through`));
  }
  if (winner < 0) return lines;
  const wins = docs[winner]!;
  for (const hidden of docs.slice(winner + 1)) {
    if (hidden.level === wins.level) continue;
    lines.push(
      info(
        wins.shown,
        wins.enabled ? `shadows ${hidden.label}` : `hides ${hidden.label} (enabled: false here removes the skill from every outer level)`,
      ),
    );
  }
  return lines;
}
