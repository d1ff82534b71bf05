import { readdir, readFile, stat } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import type { DocumentProblem } from "../shared/errors.js";
import { parseSkillDocument } from "../shared/skills/skill-document-parser.js";

interface ValidationLine {
  file: string;
  line?: number | undefined;
  severity: "error" | "warning";
  message: string;
}

async function findSkillDocuments(path: string): Promise<string[]> {
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

const exists = async (path: string): Promise<boolean> => stat(path).then((s) => s.isFile(), () => false);

/**
 * Validates every skill directory under each path with the service's own parser, plus the checks
 * the loader makes (referenced files present in the same directory).
 */
export async function validateSkillTrees(paths: readonly string[], cwd = process.cwd()): Promise<ValidationLine[]> {
  const lines: ValidationLine[] = [];
  for (const root of paths) {
    for (const file of await findSkillDocuments(root)) {
      const shown = relative(cwd, file) || file;
      const directory = dirname(file);
      const bytes = await readFile(file);
      const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
      const result = parseSkillDocument(basename(directory), text, shown);
      const add = (p: DocumentProblem): void => {
        lines.push({ file: shown, line: p.line, severity: p.severity, message: p.message });
      };
      result.problems.forEach(add);
      for (const doc of result.definition?.referenceDocs ?? []) {
        if (!(await exists(join(directory, doc.file)))) {
          add({ path: shown, severity: doc.loadMode === "INLINE" ? "warning" : "warning", message: `referenceDocs '${doc.title}': file '${doc.file}' not found next to SKILL.md` });
        }
      }
      for (const script of result.definition?.scripts ?? []) {
        if (!(await exists(join(directory, script.file)))) {
          add({ path: shown, severity: "warning", message: `scripts '${script.name}': file '${script.file}' not found next to SKILL.md` });
        }
      }
    }
  }
  return lines;
}

export const formatValidationLine = (l: ValidationLine): string => `${l.file}:${l.line ?? 1}: ${l.severity}: ${l.message}`;
