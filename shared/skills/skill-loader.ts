import { InvalidDocument, InvalidRequest, type DocumentProblem } from "../errors.js";
import type { StoredDocument } from "../documents/document-store.js";
import { strictUtf8 } from "../documents/document-body.js";
import { pinnedLayer, type CascadeLayer, type CascadeSources, type DocumentPreparer } from "../documents/cascade-layers.js";
import { CascadeDocuments } from "../documents/cascade-documents.js";
import {
  messageOf,
  parseCascadeDocument,
  type CascadeDocumentKind,
  type CascadeShadowed,
  type FoundDocument,
  type LayerListing,
} from "../documents/cascade-resolver.js";
import {
  isComplete,
  type ListedSkill,
  type ResolvedReferenceDoc,
  type ResolvedSkill,
  type SkillDefinition,
  type SkillProblem,
} from "./resolved-skill.js";
import { MAX_SKILL_TEXT_BYTES, parseSkillDocument } from "./skill-document-parser.js";
import { skillFilesFromLayer, skillFilesFromListing, skillFilesWarning } from "./skill-files.js";
import { isSkillName, skillDirectory, skillDirectoryNameOf, skillDocumentPath, skillFilePath, SKILLS_PREFIX } from "./skill-paths.js";
import type { SkillScopeContext } from "../documents/cascade-scope.js";
import { foldedSkillName, skillNameRefusal } from "./skill-name.js";
import { PinnedSkillVersions, type PinOutcome } from "./pinned-skill-versions.js";
import { skillLevelExtras } from "./skill-level-extras.js";

/** INLINE reference docs go into every prompt; a bigger one is refused with a warning. */
const MAX_REFERENCE_DOC_BYTES = 1024 * 1024;

/** The store, the RESOURCE layer (bundled-document-layer.ts) and optionally the warm catalogue. */
type SkillLoaderOptions = CascadeSources;

/** `_vance/skills/<name>/SKILL.md` as a kind of cascade document. */
const skillKind: CascadeDocumentKind<SkillDefinition, ResolvedSkill> = {
  prefix: SKILLS_PREFIX,
  nameOf: skillDirectoryNameOf,
  isName: isSkillName,
  documentPath: skillDocumentPath,
  invalidNameMessage: (dir) => skillNameRefusal(dir) ?? `invalid skill directory name '${dir}'`,
  maxBytes: MAX_SKILL_TEXT_BYTES,
  invalidDocumentMessage: "is not a valid skill document",
  parse: (name, text, path) => {
    const parsed = parseSkillDocument(name, text, path);
    return { definition: parsed.definition, problems: parsed.problems };
  },
  isEnabled: (definition) => definition.enabled,
  materialize,
  materializeListed,
  foldName: foldedSkillName,
};

/**
 * What a level snapshot keeps of a SKILL.md (shared/catalogue/): its parse outcome with every
 * field of the definition but the body, copied generically, so a field the parser adds is kept
 * (and served by listings) without touching the snapshot code.
 */
export const skillDocumentPreparer: DocumentPreparer = {
  handles: (path) => skillDirectoryNameOf(path) !== undefined,
  levelExtras: skillLevelExtras,
  prepare: (path, doc) => {
    const name = skillDirectoryNameOf(path);
    if (name === undefined || !isSkillName(name)) return { ok: false, findings: [{ message: skillKind.invalidNameMessage(name ?? path) }] };
    const outcome = parseCascadeDocument(skillKind, doc, name, path);
    if (!outcome.ok) return outcome;
    const { body: _body, ...listed } = outcome.definition;
    return { ok: true, definition: listed, warnings: outcome.warnings };
  },
};

/**
 * The only place that materializes skills (spec §11). Cascade (spec §3), innermost first:
 * USER `_user_<userId>` (only with a user) → PROJECT `<projectId>` (only with a project) →
 * VANCE `_tenant` → RESOURCE (bundled). First usable hit wins; `enabled: false` hides the name
 * from every outer layer.
 *
 * Defective documents (unreadable, not UTF-8, binary, too large, failing to parse or validate,
 * invalid directory name) are invisible (spec §9): the lookup treats them as absent and falls
 * through to the next outer layer, and problems() reports them. Nothing about a single skill
 * ever makes load() or listAvailable() throw; only a failing store (or an invalid scope) does.
 *
 * Sibling files (reference docs, scripts) are read from the layer that provided SKILL.md,
 * never re-cascaded (spec §2 "Reference File Layer Pinning").
 *
 * With a catalogue (options.catalogue) lookups are served from the warm per-level catalogue,
 * validated on every call (shared/catalogue/document-catalogue.ts); without one every call lists
 * and reads the layers.
 */
export class SkillLoader {
  private readonly sources: CascadeSources;
  private readonly documents: CascadeDocuments<SkillDefinition, ResolvedSkill>;
  private readonly problemMemo = new WeakMap<readonly ResolvedSkill[], { problems: readonly unknown[]; all: SkillProblem[] }>();
  private readonly pins: PinnedSkillVersions;
  /** Listing entries completed with their body, per entry object (a warm listing hands out the same objects). */
  private readonly completed = new WeakMap<ListedSkill, Promise<ResolvedSkill | undefined>>();

  constructor(options: SkillLoaderOptions) {
    this.sources = { store: options.store, bundled: options.bundled, catalogue: options.catalogue };
    this.documents = new CascadeDocuments(skillKind, this.sources);
    this.pins = new PinnedSkillVersions(this.sources, materialize);
  }

  /** A skill the scope pins (a process's recipe `skillVersions`) is that version, or absent when the pin cannot be served. */
  async load(scope: SkillScopeContext, name: string): Promise<ResolvedSkill | undefined> {
    const current = await this.documents.load(scope, name);
    const versionId = current && PinnedSkillVersions.pinOf(scope, current, name);
    if (!current || versionId === undefined) return current;
    const outcome = await this.pins.resolve(scope, current, versionId);
    return "skill" in outcome ? outcome.skill : undefined;
  }

  /**
   * Whether `versionId` can be served as the pinned version of `name` in this scope: the spawn of a
   * pinning recipe checks each pin with it, so a process never starts on a pin that cannot compose.
   */
  async checkPin(scope: SkillScopeContext, name: string, versionId: string): Promise<PinOutcome> {
    const current = await this.documents.load(scope, name);
    if (!current) return { refusal: `skill '${name}' does not resolve in this scope` };
    return this.pins.resolve(scope, current, versionId);
  }

  /**
   * Union of all layers, deduplicated by name (inner wins), disabled and defective ones removed, by
   * name; pins applied. Entries served from a level snapshot carry no body and no INLINE
   * reference contents (ListedSkill): `complete` reads them for the skills a turn composes.
   */
  async listAvailable(scope: SkillScopeContext): Promise<ListedSkill[]> {
    const items = (await this.documents.scan(scope)).items;
    return scope.skillVersions === undefined ? items : this.pins.applyToListing(scope, items);
  }

  /**
   * A listing entry with its body and INLINE references: the entry itself when it has them, else
   * made again from its SKILL.md in the entry's layer (read once per ETag, then kept by the
   * catalogue), kept per entry. Undefined when the skill no longer resolves.
   */
  complete(scope: SkillScopeContext, listed: ListedSkill): Promise<ResolvedSkill | undefined> {
    if (isComplete(listed)) return Promise.resolve(listed);
    const kept = this.completed.get(listed);
    if (kept !== undefined) return kept;
    // From the entry's own layer (no second version read); by name when the entry was not made here.
    const loading = this.documents.complete(listed as ResolvedSkill).then((skill) => skill ?? this.load(scope, listed.name));
    this.completed.set(listed, loading);
    loading.catch(() => this.completed.delete(listed));
    return loading;
  }

  /**
   * Every skill document an inner level hides (`overridden` by a usable skill of the same name, or
   * `disabled` by an `enabled: false` override), by name then level, inner first, with the listing
   * of listAvailable. Part of the same scan: with a catalogue it costs nothing beyond the listing.
   */
  async listWithShadowed(scope: SkillScopeContext): Promise<{ skills: ListedSkill[]; shadowed: CascadeShadowed[] }> {
    // One scan for both: without a catalogue a second call would list and read every level again.
    const { items, shadowed } = await this.documents.scan(scope);
    return { skills: items, shadowed };
  }

  /**
   * Every skill document the cascade skipped in a listing, and why (severity error), then the
   * warnings of the skills that load, then the documents an inner level hides (severity info)
   * (GET …/skills/problems), each group by name and level.
   */
  async problems(scope: SkillScopeContext): Promise<SkillProblem[]> {
    const { items, problems, shadowed } = await this.documents.scan(scope);
    // A warm catalogue hands out the same frozen scan while nothing changed: so does this.
    const memo = this.problemMemo.get(items);
    if (memo !== undefined && memo.problems === problems) return memo.all;
    const skipped: SkillProblem[] = problems.map((problem) => ({ ...problem, severity: "error" }));
    const warned: SkillProblem[] = items.flatMap((skill) =>
      skill.warnings.map((warning) => ({
        name: skill.name,
        source: skill.source,
        path: warning.path,
        ...(warning.line !== undefined ? { line: warning.line } : {}),
        message: warning.message,
        severity: warning.severity === "info" ? ("info" as const) : ("warning" as const),
      })),
    );
    const hidden: SkillProblem[] = shadowed.map(shadowedProblem);
    const found = [...skipped, ...warned, ...hidden];
    const all = Object.isFrozen(items) ? (Object.freeze(found) as SkillProblem[]) : found;
    this.problemMemo.set(items, { problems, all });
    return all;
  }

  /**
   * Reads a file of a resolved skill (e.g. an ON_DEMAND reference or a script) from the layer that
   * provided it. Takes the scope because a location names no tenant; the location must be one of
   * that scope's layers, so a stale or forged location cannot reach another project.
   */
  async readSkillFile(scope: SkillScopeContext, skill: ListedSkill, relativePath: string): Promise<string | undefined> {
    const doc = await this.readSkillFileDocument(scope, skill, relativePath);
    if (!doc) return undefined;
    const path = doc.path;
    const text = strictUtf8(doc.body);
    if (text === undefined) throw new InvalidDocument(path, [{ path, message: "is not UTF-8 text", severity: "error" }]);
    return text;
  }

  /** The bytes of a file of a resolved skill, from the layer that provided it (see readSkillFile). */
  async readSkillFileDocument(scope: SkillScopeContext, skill: ListedSkill, relativePath: string): Promise<StoredDocument | undefined> {
    const { directory } = skill.location;
    const { layer } = pinnedLayer(scope, this.sources, skill.location);
    if (!isSkillName(skill.name) || directory !== skillDirectory(skill.name)) {
      throw new InvalidRequest(`Skill location '${String(directory).slice(0, 120)}' is not the directory of a skill`);
    }
    return layer.read(skillFilePath(directory, relativePath));
  }
}

/** A hidden document as a problems entry: what hides it, so an author sees why an edit has no effect. */
function shadowedProblem(s: CascadeShadowed): SkillProblem {
  const message =
    s.reason === "disabled"
      ? `hidden by the ${s.shadowedBy} level's enabled: false override of the same name (${s.path})`
      : `shadowed by the ${s.shadowedBy} level's skill of the same name (${s.path})`;
  return { name: s.name, source: s.source, path: s.path, message, severity: "info" };
}

/**
 * The winning SKILL.md with its INLINE references, read from the same layer. A definition from a
 * level snapshot (no `doc`) becomes a listing entry: no body, and INLINE references are not read
 * (only checked against the listing), so a cold listing reads nothing of skills that are not active.
 */
async function materialize(found: FoundDocument<SkillDefinition>): Promise<ResolvedSkill> {
  const { at, name, listing } = found;
  if (found.doc === undefined && listing) return materializeListed({ ...found, listing });
  const directory = skillDirectory(name);
  const warnings = [...found.warnings];
  const definition = found.definition;
  const listed = found.doc === undefined;
  // One listing per level: the lookup's layer listing when it has one, else one list of the directory.
  const fileListing = listing ? skillFilesFromListing(listing, name) : await skillFilesFromLayer(at.layer, name);
  const filesWarning = skillFilesWarning(name, fileListing);
  if (filesWarning) warnings.push(filesWarning);
  const resolvedDocs = await Promise.all(
    definition.referenceDocs.map(async (ref): Promise<ResolvedReferenceDoc> => {
      if (ref.loadMode !== "INLINE") return { ...ref };
      const result = listed ? listedReference(at, directory, ref.file, listing) : await readReference(at, directory, ref.file, listing);
      if (typeof result === "string") return { ...ref, content: result };
      if (result) warnings.push(result);
      return { ...ref };
    }),
  );
  return resolvedSkill(definition, resolvedDocs, {
    source: at.source,
    location: { source: at.source, project: at.project, directory, etag: found.etag },
    warnings,
    files: fileListing.files,
  });
}

/**
 * materialize of a listing entry from a level snapshot with its layer's listing: nothing to read,
 * so no promise (a cold scan makes 10 000 of these at once). Same entry, same warnings in the same
 * order as materialize gives for it.
 */
function materializeListed(found: FoundDocument<SkillDefinition> & { listing: LayerListing }): ResolvedSkill {
  const { at, name, listing, definition } = found;
  const directory = skillDirectory(name);
  const warnings = [...found.warnings];
  const fileListing = skillFilesFromListing(listing, name);
  const filesWarning = skillFilesWarning(name, fileListing);
  if (filesWarning) warnings.push(filesWarning);
  const resolvedDocs = definition.referenceDocs.map((ref): ResolvedReferenceDoc => {
    if (ref.loadMode === "INLINE") {
      const problem = listedReference(at, directory, ref.file, listing);
      if (problem) warnings.push(problem);
    }
    return { ...ref };
  });
  return resolvedSkill(definition, resolvedDocs, {
    source: at.source,
    location: { source: at.source, project: at.project, directory, etag: found.etag },
    warnings,
    files: fileListing.files,
  });
}

/**
 * Field by field in one fixed order (the order `{ ...definition, referenceDocs, … }` gave), not by
 * spreading: V8 gives every object spread from a 20-field definition a hidden class of its own, so
 * a listing of 1 000 skills had 1 000 shapes and every per-turn pass over it (trigger filter,
 * lookups by name) ran on megamorphic property loads. Built like this, skills share a few shapes.
 */
function resolvedSkill(
  definition: SkillDefinition,
  referenceDocs: ResolvedReferenceDoc[],
  placed: Pick<ResolvedSkill, "source" | "location" | "warnings" | "files">,
): ResolvedSkill {
  const skill: Omit<ResolvedSkill, "scripts" | "body" | "referenceDocs" | "source" | "location" | "warnings"> & Partial<ResolvedSkill> = {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    version: definition.version,
    whenToUse: definition.whenToUse,
    argumentHint: definition.argumentHint,
    compatibility: definition.compatibility,
    disableModelInvocation: definition.disableModelInvocation,
    userInvocable: definition.userInvocable,
    triggers: definition.triggers,
    tools: definition.tools,
    allowedToolPatterns: definition.allowedToolPatterns,
    template: definition.template,
    manualPaths: definition.manualPaths,
    tags: definition.tags,
    enabled: definition.enabled,
    lifecycle: definition.lifecycle,
    run: definition.run,
    arguments: definition.arguments,
    activate: definition.activate,
    deactivate: definition.deactivate,
  };
  if ("action" in definition) skill.action = definition.action;
  skill.scripts = definition.scripts;
  if ("license" in definition) skill.license = definition.license;
  if ("metadata" in definition) skill.metadata = definition.metadata;
  // Fields the list above does not name (a field added to SkillDefinition later) are carried too.
  for (const key of Object.keys(definition)) {
    if (!NAMED_FIELDS.has(key) && !(key in skill))
      (skill as Record<string, unknown>)[key] = (definition as unknown as Record<string, unknown>)[key];
  }
  // A listing entry from a level snapshot has no body (ListedSkill).
  if (typeof definition.body === "string") skill.body = definition.body;
  skill.referenceDocs = referenceDocs;
  skill.source = placed.source;
  skill.location = placed.location;
  skill.warnings = placed.warnings;
  skill.files = placed.files;
  return skill as ResolvedSkill;
}

/**
 * Fields resolvedSkill names (copied above, or set itself and never copied from the definition):
 * the loop over the rest asks this set before the slower `in` on the skill being built.
 */
const NAMED_FIELDS: ReadonlySet<string> = new Set([
  "name",
  "title",
  "description",
  "version",
  "whenToUse",
  "argumentHint",
  "compatibility",
  "disableModelInvocation",
  "userInvocable",
  "triggers",
  "tools",
  "allowedToolPatterns",
  "template",
  "manualPaths",
  "tags",
  "enabled",
  "lifecycle",
  "run",
  "arguments",
  "activate",
  "deactivate",
  "action",
  "scripts",
  "license",
  "metadata",
  "body",
  "referenceDocs",
  "source",
  "location",
  "warnings",
  "files",
]);

/** What a listing can tell of an INLINE reference without reading it: missing or too large (readReference says the rest). */
function listedReference(
  at: CascadeLayer,
  directory: string,
  file: string,
  listing: LayerListing | undefined,
): DocumentProblem | undefined {
  const skillPath = `${directory}/SKILL.md`;
  let path: string;
  try {
    path = skillFilePath(directory, file);
  } catch (error) {
    return {
      path: skillPath,
      message: `referenceDocs file '${file}' is not a path inside the skill directory (${messageOf(error)})`,
      severity: "warning",
    };
  }
  const ref = listing?.get(path);
  if (listing && !ref)
    return {
      path: skillPath,
      message: `referenceDocs file '${file}' not found in the ${at.source} layer (reference files are not looked up in other layers)`,
      severity: "warning",
    };
  if (ref && ref.size > MAX_REFERENCE_DOC_BYTES)
    return {
      path: skillPath,
      message: `referenceDocs file '${file}' is larger than ${MAX_REFERENCE_DOC_BYTES} bytes`,
      severity: "warning",
    };
  return undefined;
}

/** The content of an INLINE reference from the pinned layer, or the warning why there is none. */
async function readReference(
  at: CascadeLayer,
  directory: string,
  file: string,
  listing: LayerListing | undefined,
): Promise<string | DocumentProblem> {
  const skillPath = `${directory}/SKILL.md`;
  const warn = (message: string): DocumentProblem => ({ path: skillPath, message, severity: "warning" });
  let path: string;
  try {
    path = skillFilePath(directory, file);
  } catch (error) {
    return warn(`referenceDocs file '${file}' is not a path inside the skill directory (${messageOf(error)})`);
  }
  const missing = warn(
    `referenceDocs file '${file}' not found in the ${at.source} layer (reference files are not looked up in other layers)`,
  );
  if (listing && !listing.has(path)) return missing;
  let doc: StoredDocument | undefined;
  try {
    doc = await at.layer.read(path);
  } catch (error) {
    return warn(`referenceDocs file '${file}' could not be read: ${messageOf(error)}`);
  }
  if (!doc) return missing;
  if (doc.body.byteLength > MAX_REFERENCE_DOC_BYTES)
    return warn(`referenceDocs file '${file}' is larger than ${MAX_REFERENCE_DOC_BYTES} bytes`);
  const text = strictUtf8(doc.body);
  return text ?? warn(`referenceDocs file '${file}' is not UTF-8 text`);
}
