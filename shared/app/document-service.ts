import { TRIGGER_EVALS_FILE, evalWarnings, evalsSkillNameOf, parseTriggerEvals, runTriggerEvals } from "../skills/evals/trigger-evals.js";
import type { EvalReport, TriggerEvals } from "../skills/evals/trigger-evals.js";
import { EvalTimeBudget, SAVE_EVALS_TIME_BUDGET_MS } from "../skills/evals/eval-time-budget.js";
import type { SkillScope } from "../skills/skill-scope.js";
import { MAX_PATTERN_TRIGGERS_PER_LEVEL, patternCount } from "../skills/triggers/trigger-caps.js";
import { noDocumentChangeNotifier, type DocumentChangeNotifier } from "../catalogue/document-change-notifier.js";
import { assertCanReadDocuments, assertCanWriteDocuments } from "../auth/authorization.js";
import type { Identity } from "../auth/identity.js";
import { DocumentNotFound, InvalidDocument, InvalidRequest, VersionsUnavailable } from "../errors.js";
import type { DocumentProblem } from "../errors.js";
import { parseRecipeDocument } from "../recipes/recipe-document-parser.js";
import { recipeNameOf } from "../recipes/recipe-paths.js";
import { VERSION_ID_PATTERN } from "../recipes/recipe-schema.js";
import type { SkillDefinition } from "../skills/resolved-skill.js";
import { MAX_SKILL_TEXT_BYTES, parseSkillDocument } from "../skills/skill-document-parser.js";
import { DocumentTooLargeToRead } from "../documents/document-store-errors.js";
import { SKILLS_PREFIX, skillDirectory, skillDirectoryNameOf, skillFilePath } from "../skills/skill-paths.js";
import { templateVariableWarnings } from "../skills/skill-template-lint.js";
import { linkedSiblingPaths } from "../skills/skill-body-links.js";
import { bareEtag, strictUtf8, textOrInvalid } from "../documents/document-body.js";
import { documentDigest } from "../skills/document-digest.js";
import { TENANT_PROJECT_NAME, USER_PROJECT_PREFIX, validateDocumentPath, validateDocumentPrefix, validateProjectName, validateWritableDocumentPath } from "../documents/document-path.js";
import { capFindings } from "../support/capped-list.js";
import type { DocumentRef, DocumentStore, DocumentVersion, StoredDocument } from "../documents/document-store.js";
import { DEFAULT_DOCUMENT_LIMITS, MAX_DOCUMENT_BYTES } from "./document-limits.js";
import { countedLevel, listedLevel, recordDeleted, type WriteLevelView } from "./write-level-view.js";
import type { LevelUsage } from "../catalogue/level-usage.js";
import type { DocumentLimits } from "./document-limits.js";


const levelOf = (project: string): SkillScope =>
  project === TENANT_PROJECT_NAME ? "VANCE" : project.startsWith(USER_PROJECT_PREFIX) ? "USER" : "PROJECT";

/**
 * Save-time evals run the skill alone (no cascade scan on a PUT) through the turn's rule, with
 * its level for the pattern caps, under a budget that keeps the PUT fast.
 */
const runSaveTimeEvals = (skill: SkillDefinition & { source: SkillScope }, evals: TriggerEvals): Promise<EvalReport> =>
  runTriggerEvals(skill, [skill], evals, new EvalTimeBudget(SAVE_EVALS_TIME_BUDGET_MS));

/** A finding that did not stop the save (API.md `warnings`), in the shape of an INVALID_DOCUMENT problem. */
interface DocumentWarning {
  path: string;
  line?: number;
  message: string;
  /** Only `info` is written: an entry without it is a warning (the shape API.md gave first). */
  severity?: "info";
}

interface DocumentSaved {
  path: string;
  etag: string;
  warnings: DocumentWarning[];
}

const CONTENT_TYPES: readonly (readonly [RegExp, string])[] = [
  [/\.md$/i, "text/markdown; charset=utf-8"],
  [/\.ya?ml$/i, "application/yaml; charset=utf-8"],
  [/\.json$/i, "application/json; charset=utf-8"],
  [/\.(txt|js|mjs|ts|py|sh)$/i, "text/plain; charset=utf-8"],
];

const OCTET_STREAM = "application/octet-stream";

/**
 * What a GET answers: the uploader's content type, else one by file extension. S3 reports an
 * object stored without a type as `application/octet-stream` (or `binary/octet-stream`), so
 * those count as "none given" when the extension says better.
 */
export function contentTypeOf(doc: Pick<StoredDocument, "path" | "contentType">): string {
  const given = doc.contentType?.trim() ?? "";
  if (given !== "" && !/^(application|binary)\/octet-stream\b/i.test(given)) return given;
  return CONTENT_TYPES.find(([pattern]) => pattern.test(doc.path))?.[1] ?? (given || OCTET_STREAM);
}

/**
 * What the uploader said the document is, except where it said nothing useful: `curl --data`
 * labels every upload as a form, which would make every later GET answer a form.
 */
const storedContentType = (contentType: string | undefined): string | undefined =>
  contentType === undefined || contentType.trim() === "" || /^application\/x-www-form-urlencoded\b/i.test(contentType) ? undefined : contentType;

/** S3 version ids are opaque printable strings of up to 1024 bytes; anything else cannot name one. */
function validVersionId(versionId: string): string {
  if (!VERSION_ID_PATTERN.test(versionId)) throw new InvalidRequest("versionId must be 1 to 1024 printable ASCII characters");
  return versionId;
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
function assertDocumentSize(path: string, body: Uint8Array): void {
  if (body.byteLength <= MAX_DOCUMENT_BYTES) return;
  throw new InvalidRequest(`Document body is larger than ${MAX_DOCUMENT_BYTES} bytes (${path}: ${body.byteLength} bytes)`);
}

/**
 * The editor API (API.md "Documents") over a DocumentStore: the authorization table for
 * documents, and the rule that a SKILL.md or recipe is only saved when the loader would accept
 * it — validated with the loader's own parsers, so "saved" and "loadable" cannot drift apart.
 * An invalid one is `InvalidDocument` (422 with every problem) and nothing is written.
 */
export class DocumentService {
  /**
   * `notify` runs after every successful write, before the caller gets its answer, so the warm
   * catalogue of every instance sees the edit on its next turn (catalogueChangeNotifier).
   */
  constructor(
    private readonly store: DocumentStore,
    private readonly notify: DocumentChangeNotifier = noDocumentChangeNotifier,
    private readonly limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS,
    /** Per-level counters (issue 27): a write then reads no listing and no other skill. Without them, the level is listed. */
    private readonly usage?: LevelUsage,
  ) {}

  private levelFor(tenant: string, project: string, path: string): Promise<WriteLevelView> {
    return this.usage ? countedLevel(this.store, this.usage, tenant, project, path) : listedLevel(this.store, tenant, project, path);
  }

  /** `mode`: the file's permission bits (document-mode.ts), kept so a pull restores them. */
  async put(identity: Identity, tenant: string, project: string, path: string, body: Uint8Array, contentType?: string, mode?: number): Promise<DocumentSaved> {
    assertCanWriteDocuments(identity, tenant, project);
    validateProjectName(project);
    validateWritableDocumentPath(path);
    assertDocumentSize(path, body);
    const level = await this.levelFor(tenant, project, path);
    const { warnings: found, patterns } = await this.validate(tenant, project, path, body, level);
    const warnings = [...found, ...strayPathWarnings(path)];
    level.assertWithinLimits(this.limits, project, path, body.byteLength);
    const saved = await this.store.put(tenant, project, path, body, storedContentType(contentType), { writtenBy: identity.login, ...(mode !== undefined ? { mode } : {}) });
    // The digest rides on the level's entry (no request of its own): MCP manifests and the skill detail read it.
    await level.record({ size: body.byteLength, patterns, digest: documentDigest(path, bareEtag(saved.etag), body) });
    await this.notify({ tenant, project, path });
    return { path: saved.path, etag: saved.etag, warnings: capFindings(warnings) };
  }

  async get(identity: Identity, tenant: string, project: string, path: string): Promise<StoredDocument> {
    assertCanReadDocuments(identity, tenant, project);
    validateProjectName(project);
    const doc = await this.store.get(tenant, project, validateDocumentPath(path));
    if (!doc) throw new DocumentNotFound(path);
    return doc;
  }

  /** The next lookup of this path falls through to the next outer cascade level. */
  async delete(identity: Identity, tenant: string, project: string, path: string): Promise<void> {
    assertCanWriteDocuments(identity, tenant, project);
    validateProjectName(project);
    validateDocumentPath(path);
    const before = this.usage && (await this.usage.read(tenant, project, path))?.entry;
    if (!(await this.store.delete(tenant, project, path))) throw new DocumentNotFound(path);
    if (this.usage) await recordDeleted(this.usage, tenant, project, path, before);
    await this.notify({ tenant, project, path });
  }

  /** API.md "Author's loop": the document's versions, newest first. VERSIONS_UNAVAILABLE without a versioned store. */
  async versions(identity: Identity, tenant: string, project: string, path: string): Promise<DocumentVersion[]> {
    assertCanReadDocuments(identity, tenant, project);
    validateProjectName(project);
    validateDocumentPath(path);
    const versions = this.store.keepsVersions ? await this.store.versions?.(tenant, project, path) : undefined;
    if (versions === undefined) throw new VersionsUnavailable();
    return versions;
  }

  /**
   * One version's body; DOCUMENT_NOT_FOUND for a version the document does not have. The store says
   * up front whether it keeps versions, so a hit and a miss each cost one read (no listing).
   */
  async getVersion(identity: Identity, tenant: string, project: string, path: string, versionId: string): Promise<StoredDocument> {
    assertCanReadDocuments(identity, tenant, project);
    validateProjectName(project);
    validateDocumentPath(path);
    validVersionId(versionId);
    if (!this.store.keepsVersions || !this.store.getVersion) throw new VersionsUnavailable();
    // Capped like a PUT: a version written around the API may be larger than a function can hold or answer.
    const doc = await this.store.getVersion(tenant, project, path, versionId, { maxBytes: MAX_DOCUMENT_BYTES });
    if (!doc) throw new DocumentNotFound(`${path} (version '${versionId.slice(0, 80)}')`);
    return doc;
  }

  /**
   * Writes a version back as the newest: validated, size-capped and counted like any PUT (so a
   * version that no longer validates is 422, one larger than a PUT may be is 400, and nothing is
   * written), catalogue bumped through put's notify.
   */
  async restore(identity: Identity, tenant: string, project: string, path: string, versionId: string): Promise<DocumentSaved> {
    assertCanWriteDocuments(identity, tenant, project);
    validateWritableDocumentPath(path);
    const doc = await this.getVersion(identity, tenant, project, path, versionId);
    return this.put(identity, tenant, project, path, doc.body, doc.contentType, doc.mode);
  }

  /** Paths relative to the project, sorted. */
  async list(identity: Identity, tenant: string, project: string, prefix = ""): Promise<DocumentRef[]> {
    assertCanReadDocuments(identity, tenant, project);
    validateProjectName(project);
    const refs = await this.store.list(tenant, project, validateDocumentPrefix(prefix));
    return refs.map(({ path, etag, size }) => ({ path, etag, size }));
  }

  /** Warnings of a document that may be saved, and the PATTERN triggers it brings; `InvalidDocument` for one that must not be. */
  private async validate(tenant: string, project: string, path: string, body: Uint8Array, level: WriteLevelView): Promise<{ warnings: DocumentWarning[]; patterns: number }> {
    const patterns = { value: 0 };
    const warnings = await this.findings(tenant, project, path, body, level, patterns);
    return { warnings, patterns: patterns.value };
  }

  private async findings(tenant: string, project: string, path: string, body: Uint8Array, level: WriteLevelView, patterns: { value: number }): Promise<DocumentWarning[]> {
    const skillName = skillDirectoryNameOf(path);
    if (skillName !== undefined) {
      const text = textOrInvalid(path, body);
      const parsed = parseSkillDocument(skillName, text, path);
      if (!parsed.definition || parsed.problems.some((p) => p.severity === "error")) throw new InvalidDocument(path, parsed.problems);
      await assertNoCaseCollision(project, path, skillName, level);
      patterns.value = await assertLevelPatternCap(project, path, parsed.definition, level);
      const missing = await this.missingSiblings(tenant, project, skillName, parsed.definition);
      const evals = await this.evalsOfSkill(tenant, project, skillName, parsed.definition);
      return [...parsed.problems.map(toWarning), ...(await templateVariableWarnings(parsed.definition, path, text)).map(toWarning), ...missing, ...evals];
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
  private async unservedPins(tenant: string, project: string, path: string, pins: Readonly<Record<string, string>> | undefined): Promise<DocumentWarning[]> {
    if (pins === undefined || !this.store.keepsVersions || !this.store.getVersion) return [];
    const warnings = await Promise.all(
      Object.entries(pins).map(async ([name, versionId]): Promise<DocumentWarning | undefined> => {
        const skillPath = `_vance/skills/${name}/SKILL.md`;
        // Whether the version exists is all a warning needs: a huge one is refused before its body is read.
        const pinned = this.store.getVersion?.(tenant, project, skillPath, versionId, { maxBytes: MAX_SKILL_TEXT_BYTES }).catch((error: unknown) => {
          if (error instanceof DocumentTooLargeToRead) return "too-large" as const;
          throw error;
        });
        const [current, found] = await Promise.all([this.store.get(tenant, project, skillPath), pinned]);
        if (found === "too-large") return current ? { path, message: `skillVersions.${name}: '${versionId.slice(0, 80)}' of ${skillPath} is larger than a SKILL.md may be: a spawn where '${name}' resolves from here is refused` } : undefined;
        if (!current || found) return undefined;
        return { path, message: `skillVersions.${name}: '${versionId.slice(0, 80)}' is not a version of ${skillPath} at this level: a spawn where '${name}' resolves from here is refused` };
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
      .map((link) => ({ path: skillPath, message: `the body links '${link}', which is not present yet in this project (expected at ${directory}/${link})` }));
    return [...linked, ...files.flatMap(({ field, file }) => {
      let sibling: string;
      try {
        sibling = skillFilePath(directory, file);
      } catch (error) {
        return [{ path: skillPath, message: `${field} file '${file}' is not a path inside the skill directory (${(error as Error).message})` }];
      }
      return present.has(sibling) ? [] : [{ path: skillPath, message: `${field} file '${file}' is not present yet in this project (expected at ${sibling})` }];
    })];
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
      { path, message: `level '${project}' would hold ${total} PATTERN triggers; at most ${cap} are allowed per ${scope.toLowerCase()} level (this skill brings ${own})`, severity: "error" },
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
