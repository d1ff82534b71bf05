import { InvalidRequest, type DocumentProblem } from "../errors.js";
import type { SkillScope, SkillScopeContext } from "./cascade-scope.js";
import { TENANT_PROJECT, userProject } from "./cascade-scope.js";
import type { DocumentLayer, DocumentRef, DocumentStore, StoredDocument } from "./document-store.js";
import { validateLogin, validateProjectId, validateTenantId } from "./document-path.js";
import { StoreDocumentLayer } from "./store-document-layer.js";

/**
 * The document cascade of one scope (spec §3), shared by everything that resolves `_vance/…`
 * documents by name (skills, recipes): USER `_user_<userId>` (only with a user) → PROJECT
 * `<projectId>` (only with a project) → VANCE `_tenant` → RESOURCE (bundled).
 */

/** Document project label of the RESOURCE layer (it is not a project of any tenant). */
const BUNDLED_PROJECT = "bundled";

/** One level of a scope's cascade, before anything is read from it. */
export interface CascadeLevel {
  source: SkillScope;
  /** A project id, `_tenant`, `_user_<login>`, or `bundled`. */
  project: string;
}

export interface CascadeLayer extends CascadeLevel {
  layer: DocumentLayer;
  /**
   * Set by a catalogue: every document of the layer under the catalogue's prefix (`_vance/`), by
   * path. A path it does not hold is absent, so a lookup skips the layer without a read.
   */
  listing?: ReadonlyMap<string, DocumentRef> | undefined;
  /**
   * Set by a catalogue with a level snapshot: per document path, the parse outcome of the
   * document with that ETag, body left out. A scan takes it instead of reading the document, so
   * a cold listing reads no SKILL.md; a lookup that needs the body still reads it.
   */
  prepared?: ReadonlyMap<string, PreparedDocument> | undefined;
}

/**
 * A document's parse outcome as a level snapshot keeps it (JSON-safe): the definition without its
 * body (`definition` is the kind's definition minus `body`), or the findings that make it defective.
 */
export interface PreparedDocument {
  etag: string;
  outcome:
    | { ok: true; definition: unknown; warnings: DocumentProblem[] }
    | { ok: false; findings: { line?: number | undefined; message: string }[] };
}

/** What a catalogue prepares per document (skills: shared/skills/skill-loader.ts `skillDocumentPreparer`). */
export interface DocumentPreparer {
  /** Whether `path` is a document this preparer parses (e.g. `_vance/skills/<name>/SKILL.md`). */
  handles(path: string): boolean;
  /** The outcome for the document read at `path`; never throws for bad content. */
  prepare(path: string, doc: StoredDocument): PreparedDocument["outcome"];
  /**
   * What a reader of the level would otherwise derive again from the outcomes, stored beside them
   * in the level snapshot (skills: the required literals of PATTERN triggers, a full regex compile
   * each; the relevance terms of each skill). `of` must give JSON; `use` must treat what it gets as
   * untrusted (a wrong shape is ignored). Both see the level's listing and outcomes as stored:
   * extras may name a document by its index in `refs`.
   */
  levelExtras?: { of(level: PreparedLevel): unknown; use(extras: unknown, level: PreparedLevel): void };
}

/** A level's listing and its documents' parse outcomes, as a level snapshot stores them. */
export interface PreparedLevel {
  readonly refs: readonly DocumentRef[];
  readonly prepared: ReadonlyMap<string, PreparedDocument>;
}

/** Where a document was found: enough to read siblings from the same layer later (layer pinning). */
export type LayerLocation = CascadeLevel;

/** A level a catalogue served from an older snapshot because refreshing it failed. */
export interface StaleLevel extends CascadeLevel {
  reason: string;
}

/** A scope's layers as a catalogue validated them for one lookup; every layer carries its `listing`. */
export interface CascadeView {
  layers: CascadeLayer[];
  /**
   * One object per level, the same objects while nothing in any level changed: anything computed
   * from `layers` may be reused while the snapshots are identical.
   */
  snapshots: readonly object[];
  stale: readonly StaleLevel[];
}

/** Port of the warm catalogue (shared/catalogue/document-catalogue.ts). */
export interface CascadeCatalogue {
  view(scope: SkillScopeContext): Promise<CascadeView>;
}

export interface CascadeSources {
  store: DocumentStore;
  /** The RESOURCE layer (bundled-document-layer.ts); injected so tests can use fixtures. */
  bundled: DocumentLayer;
  /** When set, lookups go through this catalogue instead of listing and reading every level. */
  catalogue?: CascadeCatalogue | undefined;
}

/** Innermost first, RESOURCE last. Throws InvalidRequest for a malformed tenant, user or project. */
export function cascadeLevels(scope: SkillScopeContext): CascadeLevel[] {
  validateTenantId(scope.tenantId);
  const levels: CascadeLevel[] = [];
  if (scope.userId != null && scope.userId !== "") levels.push({ source: "USER", project: userProject(validateLogin(scope.userId)) });
  // No project: the PROJECT step is skipped and the lookup starts at `_tenant` (spec §3 step 2).
  if (scope.projectId != null && scope.projectId !== "") levels.push({ source: "PROJECT", project: validateProjectId(scope.projectId) });
  levels.push({ source: "VANCE", project: TENANT_PROJECT });
  levels.push({ source: "RESOURCE", project: BUNDLED_PROJECT });
  return levels;
}

/** Innermost first. Throws InvalidRequest for a malformed tenant, user or project. */
export function cascadeLayers(scope: SkillScopeContext, sources: Pick<CascadeSources, "store" | "bundled">): CascadeLayer[] {
  return cascadeLevels(scope).map((level) => ({
    ...level,
    // StoreDocumentLayer validates the user's project name (`_user_<login>`).
    layer: level.source === "RESOURCE" ? sources.bundled : new StoreDocumentLayer(sources.store, scope.tenantId, level.project),
  }));
}

/**
 * The layer of `scope` that `location` names. A location carries no tenant, so it is only
 * trusted as one of this scope's own layers: a stale or forged one cannot reach another project.
 */
export function pinnedLayer(
  scope: SkillScopeContext,
  sources: Pick<CascadeSources, "store" | "bundled">,
  location: LayerLocation,
): CascadeLayer {
  const found = cascadeLayers(scope, sources).find((l) => l.source === location.source && l.project === location.project);
  if (!found) throw new InvalidRequest(`Layer ${location.source} '${String(location.project).slice(0, 80)}' is not part of this scope`);
  return found;
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results keep the input order. */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
