import { readdir, readFile, stat } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import { strictUtf8 } from "../shared/documents/document-body.js";
import type { DocumentProblem } from "../shared/errors.js";
import { parseSkillDocument } from "../shared/skills/skill-document-parser.js";
import { templateVariableWarnings } from "../shared/skills/skill-template-lint.js";
import { linkedSiblingPaths } from "../shared/skills/skill-body-links.js";

export interface ValidationLine {
  file: string;
  line?: number | undefined;
  /** `info`: changes nothing (a missing `title:`, cross-level shadowing with `--level`); listed with `--verbose`. */
  severity: "error" | "warning" | "info";
  message: string;
  /** An info listed without `--verbose`: the shadowing that `--level` was asked to show. */
  listed?: true;
}

export interface ValidationReport {
  /** SKILL.md files checked. */
  skills: number;
  /** Sorted by file, then line. */
  lines: ValidationLine[];
}

export async function findSkillDocuments(path: string): Promise<string[]> {
  const info = await stat(path);
  if (info.isFile()) return basename(path) === "SKILL.md" ? [path] : [];
  if (!info.isDirectory()) return [];
  const found: string[] = [];
  for (const entry of await readdir(path, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const child = join(path, entry.name);
    if (entry.isDirectory()) found.push(...(await findSkillDocuments(child)));
    else if (entry.isFile() && entry.name === "SKILL.md") found.push(child);
  }
  return found.sort();
}

const exists = async (path: string): Promise<boolean> =>
  stat(path).then(
    (s) => s.isFile(),
    () => false,
  );

/**
 * One SKILL.md checked as the server's PUT checks it: strict UTF-8 (the service refuses anything
 * else), the service's own parser with the directory name as the skill name, plus the loader's
 * check that referenced files lie next to it. `shown` is the path the lines cite.
 */
export async function checkSkillDocument(file: string, shown: string, bytes?: Uint8Array): Promise<ValidationLine[]> {
  return (await inspectSkillDocument(file, shown, bytes)).lines;
}

/** As checkSkillDocument, with whether the service would use it and whether it is `enabled: false`. */
export async function inspectSkillDocument(
  file: string,
  shown: string,
  bytes?: Uint8Array,
): Promise<{ lines: ValidationLine[]; usable: boolean; enabled: boolean }> {
  const directory = dirname(file);
  const lines: ValidationLine[] = [];
  const add = (p: Pick<DocumentProblem, "line" | "severity" | "message">): void => {
    lines.push({ file: shown, line: p.line, severity: p.severity, message: p.message });
  };
  const text = strictUtf8(bytes ?? (await readFile(file)));
  if (text === undefined) {
    add({ severity: "error", message: "is not UTF-8 text (invalid byte sequence or binary content); save it as UTF-8" });
    return { lines, usable: false, enabled: false };
  }
  const result = parseSkillDocument(basename(directory), text, shown);
  result.problems.forEach(add);
  if (result.definition) (await templateVariableWarnings(result.definition, shown, text)).forEach(add);
  const links = result.definition ? linkedSiblingPaths(result.definition.body) : [];
  if (links.length > 0) {
    // As skill_read_file resolves them: exactly, or one file that matches case-insensitively.
    const files = new Set(
      (await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => []))
        .filter((entry) => entry.isFile())
        .map((entry) => relative(directory, join(entry.parentPath, entry.name)).split("\\").join("/").toLowerCase()),
    );
    for (const link of links) {
      if (!files.has(link.toLowerCase())) add({ severity: "warning", message: `the body links '${link}', which is not next to SKILL.md` });
    }
  }
  for (const doc of result.definition?.referenceDocs ?? []) {
    if (!(await exists(join(directory, doc.file)))) {
      add({ severity: "warning", message: `referenceDocs '${doc.title}': file '${doc.file}' not found next to SKILL.md` });
    }
  }
  for (const script of result.definition?.scripts ?? []) {
    if (!(await exists(join(directory, script.file)))) {
      add({ severity: "warning", message: `scripts '${script.name}': file '${script.file}' not found next to SKILL.md` });
    }
  }
  const usable = result.definition !== undefined && !lines.some((l) => l.severity === "error");
  return { lines, usable, enabled: result.definition?.enabled ?? false };
}

export const byPathThenLine = (a: ValidationLine, b: ValidationLine): number =>
  a.file < b.file ? -1 : a.file > b.file ? 1 : (a.line ?? 1) - (b.line ?? 1);

/** Validates every skill directory under each path with the service's own parser. */
export async function validateSkillTrees(paths: readonly string[], cwd = process.cwd()): Promise<ValidationLine[]> {
  return (await validateSkillReport(paths, cwd)).lines;
}

/** As validateSkillTrees, with the number of SKILL.md files checked (none found is the caller's error). */
export async function validateSkillReport(paths: readonly string[], cwd = process.cwd()): Promise<ValidationReport> {
  const lines: ValidationLine[] = [];
  let skills = 0;
  for (const root of paths) {
    for (const file of await findSkillDocuments(root)) {
      skills += 1;
      lines.push(...(await checkSkillDocument(file, relative(cwd, file) || file)));
    }
  }
  // A stable sort: problems of one line keep the parser's order.
  return { skills, lines: lines.sort(byPathThenLine) };
}

export const formatValidationLine = (l: ValidationLine): string => `${l.file}:${l.line ?? 1}: ${l.severity}: ${l.message}`;

/** `--format json`: `{skills, count, problems:[{path, line?, severity, message}], rules?:[{rule, severity, count}]}`. */
export function validationJson(
  report: ValidationReport,
  lines: readonly ValidationLine[],
  rules?: readonly { rule: string; severity: string; count: number }[],
): string {
  const problems = lines.map((l) => ({
    path: l.file,
    ...(l.line === undefined ? {} : { line: l.line }),
    severity: l.severity,
    message: l.message,
  }));
  return JSON.stringify({ skills: report.skills, count: problems.length, problems, ...(rules ? { rules } : {}) }, null, 2);
}
