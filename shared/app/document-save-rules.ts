// The save rules of the documents API: a SKILL.md, an evals file or a recipe is saved only when
// the loader would accept it (its own parsers), within the level's caps (PATTERN triggers, names
// that differ only in case), and with warnings for what will not work yet (missing siblings,
// failing evals, unservable pins, a SKILL.md the cascade never reads). Split from
// document-service.ts (issue 29): the service is the editor API, this file is what "valid" means.
import { TRIGGER_EVALS_FILE, evalWarnings, evalsSkillNameOf, parseTriggerEvals, runTriggerEvals } from "../skills/evals/trigger-evals.js";
import type { EvalReport, TriggerEvals } from "../skills/evals/trigger-evals.js";
import { EvalTimeBudget, SAVE_EVALS_TIME_BUDGET_MS } from "../skills/evals/eval-time-budget.js";
import type { SkillScope } from "../documents/cascade-scope.js";
import { MAX_PATTERN_TRIGGERS_PER_LEVEL, patternCount } from "../skills/triggers/trigger-caps.js";
import { InvalidDocument, InvalidRequest } from "../errors.js";
import type { DocumentProblem } from "../errors.js";
import { parseRecipeDocument } from "../recipes/recipe-document-parser.js";
import { recipeNameOf } from "../recipes/recipe-paths.js";
import type { SkillDefinition } from "../skills/resolved-skill.js";
import { MAX_SKILL_TEXT_BYTES, parseSkillDocument } from "../skills/skill-document-parser.js";
import { DocumentTooLargeToRead } from "../documents/document-store-errors.js";
import { SKILLS_PREFIX, skillDirectory, skillDirectoryNameOf, skillFilePath } from "../skills/skill-paths.js";
import { templateVariableWarnings } from "../skills/skill-template-lint.js";
import { linkedSiblingPaths } from "../skills/skill-body-links.js";
import { strictUtf8, textOrInvalid } from "../documents/document-body.js";
import { TENANT_PROJECT_NAME, USER_PROJECT_PREFIX } from "../documents/document-path.js";
import type { DocumentStore } from "../documents/document-store.js";
import { MAX_DOCUMENT_BYTES } from "./document-limits.js";
import type { WriteLevelView } from "./write-level-view.js";

const levelOf = (project: string): SkillScope =>
  project === TENANT_PROJECT_NAME ? "VANCE" : project.startsWith(USER_PROJECT_PREFIX) ? "USER" : "PROJECT";

/**
 * Save-time evals run the skill alone (no cascade scan on a PUT) through the turn's rule, with
 * its level for the pattern caps, under a budget that keeps the PUT fast.
 */
const runSaveTimeEvals = (skill: SkillDefinition & { source: SkillScope }, evals: TriggerEvals): Promise<EvalReport> =>
  runTriggerEvals(skill, [skill], evals, new EvalTimeBudget(SAVE_EVALS_TIME_BUDGET_MS));

/** A finding that did not stop the save (API.md `warnings`), in the shape of an INVALID_DOCUMENT problem. */
export interface DocumentWarning {
  path: string;
  line?: number;
  message: string;
  /** Only `info` is written: an entry without it is a warning (the shape API.md gave first). */
  severity?: "info";
}

const toWarning = (problem: DocumentProblem): DocumentWarning => ({
  path: problem.path,
  ...(problem.line !== undefined ? { line: problem.line } : {}),
  message: problem.message,
  ...(problem.severity === "info" ? { severity: "info" as const } : {}),
});

/**
 * The route refuses a larger PUT body before decoding it (same cap, same 400); this catches what
 * reaches `put` another way — a restored version that was written around the API.
 */
export function assertDocumentSize(path: string, body: Uint8Array): void {
  if (body.byteLength <= MAX_DOCUMENT_BYTES) return;
  throw new InvalidRequest(`Document body is larger than ${MAX_DOCUMENT_BYTES} bytes (${path}: ${body.byteLength} bytes)`);
}

/** What a document about to be saved is checked against; it reads the level's other documents, never writes. */
export class DocumentSaveRules {
  constructor(private readonly store: DocumentStore) {}

  /**
   * Warnings of a document that may be saved (with a stray SKILL.md's), and the PATTERN triggers
   * it brings; `InvalidDocument` for one that must not be.
   */
  async check(
    tenant: string,
    project: string,
    path: string,
    body: Uint8Array,
    level: WriteLevelView,
  ): Promise<{ warnings: DocumentWarning[]; patterns: number }> {
    const patterns = { value: 0 };
    const warnings = await this.findings(tenant, project, path, body, level, patterns);
    return { warnings: [...warnings, ...strayPathWarnings(path)], patterns: patterns.value };
  }

  private async findings(
    tenant: string,
    project: string,
    path: string,
    body: Uint8Array,
    level: WriteLevelView,
    patterns: { value: number },
  ): Promise<DocumentWarning[]> {
    const skillName = skillDirectoryNameOf(path);
    if (skillName !== undefined) {
      const text = textOrInvalid(path, body);
      const parsed = parseSkillDocument(skillName, text, path);
      if (!parsed.definition || parsed.problems.some((p) => p.severity === "error")) throw new InvalidDocument(path, parsed.problems);
      await assertNoCaseCollision(project, path, skillName, level);
      patterns.value = await assertLevelPatternCap(project, path, parsed.definition, level);
      const missing = await this.missingSiblings(tenant, project, skillName, parsed.definition);
      const evals = await this.evalsOfSkill(tenant, project, skillName, parsed.definition);
      return [
        ...parsed.problems.map(toWarning),
        ...(await templateVariableWarnings(parsed.definition, path, text)).map(toWarning),
        ...missing,
        ...evals,
      ];
    }
    const evalsOf = evalsSkillNameOf(path);
    if (evalsOf !== undefined) {
      // A malformed or oversized evals file is refused; failing evals only warn.
      const evals = parseTriggerEvals(textOrInvalid(path, body), path);
      const skillDoc = await this.store.get(tenant, project, `_vance/skills/${evalsOf}/SKILL.md`);
      const skillText = skillDoc && strictUtf8(skillDoc.body);
      const definition = skillText === undefined ? undefined : parseSkillDocument(evalsOf, skillText, path).definition;
      return definition ? evalWarnings(await runSaveTimeEvals({ ...definition, source: levelOf(project) }, evals), path) : [];
    }
    const recipeName = recipeNameOf(path);
    if (recipeName !== undefined) {
      const parsed = parseRecipeDocument(recipeName, textOrInvalid(path, body), path);
      if (!parsed.recipe || parsed.problems.some((p) => p.severity === "error")) throw new InvalidDocument(path, parsed.problems);
      return [...parsed.problems.map(toWarning), ...(await this.unservedPins(tenant, project, path, parsed.recipe.skillVersions))];
    }
    return [];
  }

  /**
   * Pins this level cannot serve, as warnings: only a pinned skill whose SKILL.md lives at the
   * recipe's own level can be checked on save (elsewhere the cascade decides per process); the
   * spawn checks every pin and refuses with 422.
   */
  private async unservedPins(
    tenant: string,
    project: string,
    path: string,
    pins: Readonly<Record<string, string>> | undefined,
  ): Promise<DocumentWarning[]> {
    if (pins === undefined || !this.store.keepsVersions || !this.store.getVersion) return [];
    const warnings = await Promise.all(
      Object.entries(pins).map(async ([name, versionId]): Promise<DocumentWarning | undefined> => {
        const skillPath = `_vance/skills/${name}/SKILL.md`;
        // Whether the version exists is all a warning needs: a huge one is refused before its body is read.
        const pinned = this.store
          .getVersion?.(tenant, project, skillPath, versionId, { maxBytes: MAX_SKILL_TEXT_BYTES })
          .catch((error: unknown) => {
            if (error instanceof DocumentTooLargeToRead) return "too-large" as const;
            throw error;
          });
        const [current, found] = await Promise.all([this.store.get(tenant, project, skillPath), pinned]);
        if (found === "too-large")
          return current
            ? {
                path,
                message: `skillVersions.${name}: '${versionId.slice(0, 80)}' of ${skillPath} is larger than a SKILL.md may be: a spawn where '${name}' resolves from here is refused`,
              }
            : undefined;
        if (!current || found) return undefined;
        return {
          path,
          message: `skillVersions.${name}: '${versionId.slice(0, 80)}' is not a version of ${skillPath} at this level: a spawn where '${name}' resolves from here is refused`,
        };
      }),
    );
    return warnings.filter((w): w is DocumentWarning => w !== undefined);
  }

  /** The saved skill's own evals (same level), run against its new triggers; an unreadable evals file is a warning too. */
  private async evalsOfSkill(tenant: string, project: string, skillName: string, skill: SkillDefinition): Promise<DocumentWarning[]> {
    const path = `_vance/skills/${skillName}/${TRIGGER_EVALS_FILE}`;
    const doc = await this.store.get(tenant, project, path);
    const text = doc && strictUtf8(doc.body);
    if (text === undefined) return [];
    try {
      return evalWarnings(await runSaveTimeEvals({ ...skill, source: levelOf(project) }, parseTriggerEvals(text, path)), path);
    } catch (error) {
      if (error instanceof InvalidDocument) return error.problems.map(toWarning);
      throw error;
    }
  }

  /**
   * Sibling files are read from the SKILL.md's own layer only (layer pinning), so one that is not
   * in this project yet will not be found later either — unless it is uploaded next, which is
   * why this is a warning and not an error.
   */
  private async missingSiblings(tenant: string, project: string, name: string, skill: SkillDefinition): Promise<DocumentWarning[]> {
    const files = [
      ...skill.referenceDocs.map((ref) => ({ field: "referenceDocs", file: ref.file })),
      ...skill.scripts.map((script) => ({ field: "scripts", file: script.file })),
    ];
    const links = linkedSiblingPaths(skill.body);
    if (files.length === 0 && links.length === 0) return [];
    const directory = skillDirectory(name);
    const present = new Set((await this.store.list(tenant, project, `${directory}/`)).map((ref) => ref.path));
    const skillPath = `${directory}/SKILL.md`;
    // skill_read_file resolves a path that matches one file case-insensitively: so does this check.
    const folded = new Set([...present].map((path) => path.toLowerCase()));
    const linked = links
      .filter((link) => !folded.has(`${directory}/${link}`.toLowerCase()))
      .map((link) => ({
        path: skillPath,
        message: `the body links '${link}', which is not present yet in this project (expected at ${directory}/${link})`,
      }));
    return [
      ...linked,
      ...files.flatMap(({ field, file }) => {
        let sibling: string;
        try {
          sibling = skillFilePath(directory, file);
        } catch (error) {
          return [
            { path: skillPath, message: `${field} file '${file}' is not a path inside the skill directory (${(error as Error).message})` },
          ];
        }
        return present.has(sibling)
          ? []
          : [{ path: skillPath, message: `${field} file '${file}' is not present yet in this project (expected at ${sibling})` }];
      }),
    ];
  }
}

/**
 * Two skills of one level whose names differ only in case would be one folder on macOS and
 * Windows (a `skills pull` could not write both), and the cascade refuses both: refused at save.
 */
async function assertNoCaseCollision(project: string, path: string, name: string, level: WriteLevelView): Promise<void> {
  const other = await level.caseCollision(name);
  if (other === undefined) return;
  throw new InvalidDocument(path, [
    {
      path,
      message: `skill name '${name}' collides with the skill '${other}' of level '${project}' (names may not differ only in case); rename this folder or delete _vance/skills/${other}/ first`,
      severity: "error",
    },
  ]);
}

/**
 * The level's PATTERN triggers with this document's, against the level's cap (trigger-caps.ts);
 * resolves to this document's count. Only a document that brings patterns asks the level.
 */
async function assertLevelPatternCap(project: string, path: string, skill: SkillDefinition, level: WriteLevelView): Promise<number> {
  const own = patternCount(skill.triggers);
  if (own === 0) return 0;
  const scope = levelOf(project);
  const cap = MAX_PATTERN_TRIGGERS_PER_LEVEL[scope];
  const total = own + (await level.otherPatterns());
  if (total > cap) {
    throw new InvalidDocument(path, [
      {
        path,
        message: `level '${project}' would hold ${total} PATTERN triggers; at most ${cap} are allowed per ${scope.toLowerCase()} level (this skill brings ${own})`,
        severity: "error",
      },
    ]);
  }
  return own;
}

/** A SKILL.md that will never be a skill: the cascade only reads `_vance/skills/<name>/SKILL.md`. */
function strayPathWarnings(path: string): DocumentWarning[] {
  if (skillDirectoryNameOf(path) !== undefined) return [];
  const file = path.split("/").pop() ?? "";
  if (file.toLowerCase() !== "skill.md") return [];
  const inSkills = /^_vance\/skills\/[^/]+\/[^/]+$/.test(path);
  const reason = inSkills
    ? `the file must be named exactly SKILL.md (not ${file})`
    : path.startsWith(SKILLS_PREFIX)
      ? "a skill's SKILL.md lies directly in _vance/skills/<name>/, not deeper"
      : "skills are read only from _vance/skills/<name>/SKILL.md";
  return [{ path, message: `this ${file} will never be loaded as a skill: ${reason}` }];
}
