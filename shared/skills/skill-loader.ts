import { InvalidDocument, InvalidRequest, type DocumentProblem } from "../errors.js";
import type { DocumentRef, StoredDocument } from "../documents/document-store.js";
import { strictUtf8 } from "../documents/document-body.js";
import { cascadeLayers, mapWithConcurrency, pinnedLayer, type CascadeLayer, type CascadeSources } from "../documents/cascade-layers.js";
import type { ResolvedReferenceDoc, ResolvedSkill, SkillDefinition, SkillProblem } from "./resolved-skill.js";
import { MAX_SKILL_TEXT_BYTES, parseSkillDocument } from "./skill-document-parser.js";
import { isSkillName, skillDirectory, skillDirectoryNameOf, skillDocumentPath, skillFilePath, SKILLS_PREFIX } from "./skill-paths.js";
import { SKILL_SCOPES_INNER_FIRST, type SkillScope, type SkillScopeContext } from "./skill-scope.js";

/** INLINE reference docs go into every prompt; a bigger one is refused with a warning. */
export const MAX_REFERENCE_DOC_BYTES = 1024 * 1024;
/** Parallel skill reads during a listing: enough to hide latency, few enough not to queue SDK sockets. */
const LISTING_CONCURRENCY = 16;

/** The store and the RESOURCE layer (bundled-document-layer.ts), injected so tests can use fixtures. */
export type SkillLoaderOptions = CascadeSources;

/** Paths present in one layer under `_vance/skills/`, read once per call (the per-call memo). */
type LayerListing = ReadonlyMap<string, DocumentRef>;

type Lookup =
  | { kind: "absent" }
  | { kind: "defective"; problems: SkillProblem[] }
  | { kind: "found"; definition: SkillDefinition; warnings: DocumentProblem[]; doc: StoredDocument };

const layerRank = (source: SkillScope): number => SKILL_SCOPES_INNER_FIRST.indexOf(source);

const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

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
 */
export class SkillLoader {
  private readonly sources: CascadeSources;

  constructor(options: SkillLoaderOptions) {
    this.sources = { store: options.store, bundled: options.bundled };
  }

  /** The cascade for one scope, innermost first. Throws InvalidRequest for a malformed scope. */
  private layersFor(scope: SkillScopeContext): CascadeLayer[] {
    return cascadeLayers(scope, this.sources);
  }

  async load(scope: SkillScopeContext, name: string): Promise<ResolvedSkill | undefined> {
    const layers = this.layersFor(scope);
    // A name that cannot be a directory cannot exist anywhere: "not found" without touching storage.
    if (!isSkillName(name)) return undefined;
    return this.resolveName(layers, name, undefined, []);
  }

  /** Union of all layers, deduplicated by name (inner wins), disabled and defective ones removed, by name. */
  async listAvailable(scope: SkillScopeContext): Promise<ResolvedSkill[]> {
    return (await this.scan(scope)).skills;
  }

  /** Every skill document the cascade skipped in a listing, and why (GET …/skills/problems). */
  async problems(scope: SkillScopeContext): Promise<SkillProblem[]> {
    return (await this.scan(scope)).problems;
  }

  /**
   * Reads a file of a resolved skill (e.g. an ON_DEMAND reference or a script) from the layer that
   * provided it. Takes the scope because a location names no tenant; the location must be one of
   * that scope's layers, so a stale or forged location cannot reach another project.
   */
  async readSkillFile(scope: SkillScopeContext, skill: ResolvedSkill, relativePath: string): Promise<string | undefined> {
    const { directory } = skill.location;
    const { layer } = pinnedLayer(scope, this.sources, skill.location);
    if (!isSkillName(skill.name) || directory !== skillDirectory(skill.name)) {
      throw new InvalidRequest(`Skill location '${String(directory).slice(0, 120)}' is not the directory of a skill`);
    }
    const path = skillFilePath(directory, relativePath);
    const doc = await layer.read(path);
    if (!doc) return undefined;
    const text = strictUtf8(doc.body);
    if (text === undefined) throw new InvalidDocument(path, [{ path, message: "is not UTF-8 text", severity: "error" }]);
    return text;
  }

  private async scan(scope: SkillScopeContext): Promise<{ skills: ResolvedSkill[]; problems: SkillProblem[] }> {
    const layers = this.layersFor(scope);
    const problems: SkillProblem[] = [];
    // One list call per layer, all layers at once; everything below reuses these listings.
    const listings = await Promise.all(
      layers.map(async (l): Promise<LayerListing> => new Map((await l.layer.list(SKILLS_PREFIX)).map((ref) => [ref.path, ref]))),
    );
    const names = new Set<string>();
    layers.forEach((l, i) => {
      for (const path of listings[i]!.keys()) {
        const dir = skillDirectoryNameOf(path);
        if (dir === undefined) continue;
        if (isSkillName(dir)) names.add(dir);
        else {
          problems.push({
            name: dir,
            source: l.source,
            path,
            message: `invalid skill directory name '${dir}': lowercase letters, digits and hyphens, at most 64, not starting or ending with a hyphen`,
          });
        }
      }
    });
    const sorted = [...names].sort(byCodePoint);
    const resolved = await mapWithConcurrency(sorted, LISTING_CONCURRENCY, (name) => this.resolveName(layers, name, listings, problems));
    problems.sort((a, b) => byCodePoint(a.name, b.name) || layerRank(a.source) - layerRank(b.source));
    return { skills: resolved.filter((s): s is ResolvedSkill => s !== undefined), problems };
  }

  /**
   * Walks the cascade for one name. With listings (a listing call) a layer without the document
   * is skipped without a read, so only the winning document (and defective inner ones) is read.
   */
  private async resolveName(
    layers: CascadeLayer[],
    name: string,
    listings: readonly LayerListing[] | undefined,
    problems: SkillProblem[],
  ): Promise<ResolvedSkill | undefined> {
    const path = skillDocumentPath(name);
    for (const [i, cascadeLayer] of layers.entries()) {
      const listing = listings?.[i];
      if (listing && !listing.has(path)) continue;
      const lookup = await this.lookup(cascadeLayer, name, path);
      if (lookup.kind === "absent") continue;
      if (lookup.kind === "defective") {
        problems.push(...lookup.problems);
        continue;
      }
      // A disabled override ends the lookup: outer layers must not shine through (spec §2, §3).
      if (!lookup.definition.enabled) return undefined;
      return this.materialize(cascadeLayer, name, lookup, listing);
    }
    return undefined;
  }

  private async lookup(at: CascadeLayer, name: string, path: string): Promise<Lookup> {
    const defect = (message: string, line?: number): Lookup => ({
      kind: "defective",
      problems: [{ name, source: at.source, path, ...(line !== undefined ? { line } : {}), message }],
    });
    let doc: StoredDocument | undefined;
    try {
      doc = await at.layer.read(path);
    } catch (error) {
      return defect(`could not be read: ${messageOf(error)}`);
    }
    if (!doc) return { kind: "absent" };
    // Checked on the bytes, before decoding: the parser's own limit, applied without building the string.
    if (doc.body.byteLength > MAX_SKILL_TEXT_BYTES) return defect(`is larger than ${MAX_SKILL_TEXT_BYTES} bytes`);
    const text = strictUtf8(doc.body);
    if (text === undefined) return defect("is not UTF-8 text (invalid byte sequence or binary content)");
    let parsed: ReturnType<typeof parseSkillDocument>;
    try {
      parsed = parseSkillDocument(name, text, path);
    } catch (error) {
      return defect(`could not be parsed: ${messageOf(error)}`);
    }
    const errors = parsed.problems.filter((p) => p.severity === "error");
    if (!parsed.definition || errors.length > 0) {
      if (errors.length === 0) return defect("is not a valid skill document");
      return {
        kind: "defective",
        problems: errors.map((p) => ({ name, source: at.source, path, ...(p.line !== undefined ? { line: p.line } : {}), message: p.message })),
      };
    }
    return { kind: "found", definition: parsed.definition, warnings: parsed.problems.filter((p) => p.severity !== "error"), doc };
  }

  private async materialize(
    at: CascadeLayer,
    name: string,
    found: Extract<Lookup, { kind: "found" }>,
    listing: LayerListing | undefined,
  ): Promise<ResolvedSkill> {
    const directory = skillDirectory(name);
    const warnings = [...found.warnings];
    const { referenceDocs, ...definition } = found.definition;
    const resolvedDocs = await Promise.all(
      referenceDocs.map(async (ref): Promise<ResolvedReferenceDoc> => {
        if (ref.loadMode !== "INLINE") return { ...ref };
        const result = await this.readReference(at, directory, ref.file, listing);
        if (typeof result === "string") return { ...ref, content: result };
        warnings.push(result);
        return { ...ref };
      }),
    );
    return {
      ...definition,
      referenceDocs: resolvedDocs,
      source: at.source,
      location: { source: at.source, project: at.project, directory, etag: found.doc.etag },
      warnings,
    };
  }

  /** The content of an INLINE reference from the pinned layer, or the warning why there is none. */
  private async readReference(at: CascadeLayer, directory: string, file: string, listing: LayerListing | undefined): Promise<string | DocumentProblem> {
    const skillPath = `${directory}/SKILL.md`;
    const warn = (message: string): DocumentProblem => ({ path: skillPath, message, severity: "warning" });
    let path: string;
    try {
      path = skillFilePath(directory, file);
    } catch (error) {
      return warn(`referenceDocs file '${file}' is not a path inside the skill directory (${messageOf(error)})`);
    }
    const missing = warn(`referenceDocs file '${file}' not found in the ${at.source} layer (reference files are not looked up in other layers)`);
    if (listing && !listing.has(path)) return missing;
    let doc: StoredDocument | undefined;
    try {
      doc = await at.layer.read(path);
    } catch (error) {
      return warn(`referenceDocs file '${file}' could not be read: ${messageOf(error)}`);
    }
    if (!doc) return missing;
    if (doc.body.byteLength > MAX_REFERENCE_DOC_BYTES) return warn(`referenceDocs file '${file}' is larger than ${MAX_REFERENCE_DOC_BYTES} bytes`);
    const text = strictUtf8(doc.body);
    return text ?? warn(`referenceDocs file '${file}' is not UTF-8 text`);
  }
}
