import { readFile } from "node:fs/promises";
import { relative } from "node:path";
import { md5Etag } from "../shared/documents/document-body.js";
import { isExecutableMode } from "../shared/documents/document-mode.js";
import { SKILLS_PREFIX } from "../shared/skills/skill-paths.js";
import { limiter } from "./bounded.js";
import type { Limiter } from "./bounded.js";
import { SkillsApiError } from "../client/index.js";
import type { DocumentEntry } from "../client/index.js";
import type { DocumentsApi } from "./documents-client.js";
import { fileEtag } from "./file-etag.js";
import { planPush } from "./push-plan.js";
import type { CheckedSkill, PlannedFile, PlannedSkill, RefusedSkill } from "./push-plan.js";
import { DEFAULT_TREE_LIMITS, SKILL_DOCUMENT, scanSkillTree } from "./skill-tree.js";
import type { TreeLimits } from "./skill-tree.js";
import { byPathThenLine, checkSkillDocument, formatValidationLine } from "./validate.js";
import type { ValidationLine } from "./validate.js";

export interface PushIo {
  /** Problems and the summary. */
  out: (line: string) => void;
  /** Progress and warnings about the folder. */
  err: (line: string) => void;
}

export interface PushOptions {
  dir: string;
  /** Absent with `dryRun`: a dry run makes no request. */
  api?: DocumentsApi;
  dryRun?: boolean;
  concurrency?: number;
  /** A progress line after every this many skills. */
  progressEvery?: number;
  limits?: TreeLimits;
  cwd?: string;
  io: PushIo;
}

export interface FailedSkill {
  name: string;
  reasons: string[];
}

export interface PushSummary {
  /** Skills found under the folder. */
  skills: number;
  uploaded: { name: string; files: number }[];
  unchanged: string[];
  refused: RefusedSkill[];
  failed: FailedSkill[];
  /** Local validation, every skill, sorted by path then line. */
  problems: ValidationLine[];
}

export const DEFAULT_PUSH_CONCURRENCY = 8;

const describe = (error: unknown): string[] => {
  if (error instanceof SkillsApiError) {
    return [
      error.message,
      ...error.problems.map((p) => `${p.path ?? ""}${p.line === undefined ? "" : `:${p.line}`}: ${p.severity ?? "error"}: ${p.message}`),
    ];
  }
  return [error instanceof Error ? error.message : String(error)];
};

async function checkSkills(
  skills: Awaited<ReturnType<typeof scanSkillTree>>["skills"],
  run: Limiter,
  cwd: string,
): Promise<CheckedSkill[]> {
  return Promise.all(
    skills.map(async (skill): Promise<CheckedSkill> => {
      const document = skill.files.find((f) => f.relative === SKILL_DOCUMENT);
      const problems = document
        ? await run(() => checkSkillDocument(document.absolute, relative(cwd, document.absolute) || document.absolute))
        : [];
      const etags = new Map<string, string>();
      // Only a skill that may be uploaded is read in full.
      if (skill.refusals.length === 0 && !problems.some((p) => p.severity === "error")) {
        await Promise.all(skill.files.map(async (f) => etags.set(f.relative, await run(() => fileEtag(f.absolute)))));
      }
      return { skill, problems, etags };
    }),
  );
}

/**
 * Uploads one planned skill: its changed siblings (concurrently), then its SKILL.md. On any
 * failure the files this push created for the skill are deleted again, and its SKILL.md is never
 * written after a failed sibling, so a failed skill is not left half there as a skill.
 */
async function uploadSkill(
  api: DocumentsApi,
  skill: PlannedSkill,
  run: Limiter,
  warn: (line: string) => void,
  shown: (path: string) => string,
  /** Messages local validation printed already: the server repeats its parser's warnings. */
  known: ReadonlySet<string>,
): Promise<string[] | undefined> {
  const created: PlannedFile[] = [];
  let overwritten = 0;
  const upload = async (file: PlannedFile): Promise<void> => {
    await run(async () => {
      const bytes = await readFile(file.absolute);
      if (md5Etag(bytes) !== file.etag) throw new Error(`${shown(file.absolute)} changed while pushing; push again`);
      const saved = await api.put(file.documentPath, bytes, { mode: file.mode });
      if (file.isNew) created.push(file);
      else overwritten += 1;
      for (const w of saved.warnings.filter((w) => !known.has(w.message))) warn(`${shown(file.absolute)}: server warning: ${w.message}`);
    });
  };
  const siblings = skill.uploads.filter((f) => f.relative !== SKILL_DOCUMENT);
  const document = skill.uploads.find((f) => f.relative === SKILL_DOCUMENT);
  try {
    const results = await Promise.allSettled(siblings.map(upload));
    const failure = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failure) throw failure.reason;
    if (document) await upload(document);
    return undefined;
  } catch (error) {
    const reasons = describe(error);
    const left: string[] = [];
    await Promise.all(created.map((f) => run(() => api.delete(f.documentPath)).catch(() => left.push(f.documentPath))));
    if (left.length > 0) reasons.push(`could not remove the files this push created: ${left.join(", ")}`);
    // An overwrite cannot be undone (the old bytes are gone); say so rather than claim a clean state.
    if (overwritten > 0)
      reasons.push(`${overwritten} file(s) that were already stored now hold the new bytes; the stored SKILL.md was not replaced`);
    return reasons;
  }
}

/**
 * A listing carries no metadata, so a file whose bytes are unchanged but whose executable bit the
 * level does not have yet (pushed before modes were kept, or chmod-ed since) looks unchanged. Only
 * locally executable files are asked about (one GET each, the few scripts of a skill); one whose
 * stored mode differs is uploaded again, in the skill's upload order.
 */
async function withModeChanges(skill: PlannedSkill, api: DocumentsApi, run: Limiter): Promise<PlannedSkill> {
  const getFile = api.getFile?.bind(api);
  const candidates = getFile ? skill.unchanged.filter((f) => isExecutableMode(f.mode)) : [];
  if (!getFile || candidates.length === 0) return skill;
  const stale = new Set<PlannedFile>();
  await Promise.all(
    candidates.map(async (file) => {
      const stored = await run(() => getFile(file.documentPath)).catch(() => undefined);
      if (stored && stored.mode !== file.mode) stale.add(file);
    }),
  );
  if (stale.size === 0) return skill;
  const uploads = [...skill.uploads, ...stale];
  const order = (f: PlannedFile): string => (f.relative === SKILL_DOCUMENT ? "\uffff" : f.relative);
  uploads.sort((a, b) => (order(a) < order(b) ? -1 : 1));
  return { ...skill, uploads, unchanged: skill.unchanged.filter((f) => !stale.has(f)) };
}

/** `skills push` without the command line: scan, validate, plan, upload, summarise. */
export async function runPush(options: PushOptions): Promise<PushSummary> {
  const cwd = options.cwd ?? process.cwd();
  const run = limiter(options.concurrency ?? DEFAULT_PUSH_CONCURRENCY);
  const tree = await scanSkillTree(options.dir, options.limits ?? DEFAULT_TREE_LIMITS, cwd);
  for (const warning of tree.warnings) options.io.err(`warning: ${warning}`);
  const checked = await checkSkills(tree.skills, run, cwd);
  const problems = checked.flatMap((c) => c.problems).sort(byPathThenLine);
  for (const line of problems) options.io.out(formatValidationLine(line));

  const remote: DocumentEntry[] = options.dryRun || !options.api ? [] : await options.api.list(SKILLS_PREFIX);
  const show = (path: string): string => relative(cwd, path) || path;
  const plan = planPush(checked, remote, show);
  const refused = plan.refused.map((r) => ({ ...r, directory: show(r.directory) }));
  const summary: PushSummary = { skills: tree.skills.length, uploaded: [], unchanged: [], refused, failed: [], problems };
  if (options.dryRun || !options.api) {
    summary.uploaded = plan.planned.map((p) => ({ name: p.name, files: p.uploads.length }));
    return summary;
  }
  const api = options.api;
  const every = options.progressEvery ?? 50;
  const known = new Map(checked.map((c) => [c.skill.name, new Set(c.problems.map((p) => p.message))]));
  let done = 0;
  await Promise.all(
    plan.planned.map(async (planned) => {
      const skill = await withModeChanges(planned, api, run);
      if (skill.uploads.length === 0) summary.unchanged.push(skill.name);
      else {
        const failure = await uploadSkill(api, skill, run, options.io.err, show, known.get(skill.name) ?? new Set());
        if (failure) summary.failed.push({ name: skill.name, reasons: failure });
        else summary.uploaded.push({ name: skill.name, files: skill.uploads.length });
      }
      done += 1;
      if (done % every === 0 && done < plan.planned.length) options.io.err(`progress: ${done}/${plan.planned.length} skills`);
    }),
  );
  const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  summary.uploaded.sort(byName);
  summary.unchanged.sort();
  summary.failed.sort(byName);
  return summary;
}
