import { InvalidRequest } from "../errors.js";
import type { SkillScope, SkillScopeContext } from "../skills/skill-scope.js";
import { TENANT_PROJECT, userProject } from "../skills/skill-scope.js";
import type { DocumentLayer, DocumentStore } from "./document-store.js";
import { validateProjectId } from "./document-path.js";
import { StoreDocumentLayer } from "./store-document-layer.js";

/**
 * The document cascade of one scope (spec §3), shared by everything that resolves `_vance/…`
 * documents by name (skills, recipes): USER `_user_<userId>` (only with a user) → PROJECT
 * `<projectId>` (only with a project) → VANCE `_tenant` → RESOURCE (bundled).
 */

/** Document project label of the RESOURCE layer (it is not a project of any tenant). */
export const BUNDLED_PROJECT = "bundled";

export interface CascadeLayer {
  source: SkillScope;
  /** A project id, `_tenant`, `_user_<login>`, or `bundled`. */
  project: string;
  layer: DocumentLayer;
}

/** Where a document was found: enough to read siblings from the same layer later (layer pinning). */
export interface LayerLocation {
  source: SkillScope;
  project: string;
}

export interface CascadeSources {
  store: DocumentStore;
  /** The RESOURCE layer (bundled-document-layer.ts); injected so tests can use fixtures. */
  bundled: DocumentLayer;
}

/** Innermost first. Throws InvalidRequest for a malformed tenant, user or project. */
export function cascadeLayers(scope: SkillScopeContext, sources: CascadeSources): CascadeLayer[] {
  const layers: CascadeLayer[] = [];
  const at = (source: SkillScope, project: string): void => {
    layers.push({ source, project, layer: new StoreDocumentLayer(sources.store, scope.tenantId, project) });
  };
  if (scope.userId != null && scope.userId !== "") at("USER", userProject(scope.userId));
  // No project: the PROJECT step is skipped and the lookup starts at `_tenant` (spec §3 step 2).
  if (scope.projectId != null && scope.projectId !== "") at("PROJECT", validateProjectId(scope.projectId));
  at("VANCE", TENANT_PROJECT);
  layers.push({ source: "RESOURCE", project: BUNDLED_PROJECT, layer: sources.bundled });
  return layers;
}

/**
 * The layer of `scope` that `location` names. A location carries no tenant, so it is only
 * trusted as one of this scope's own layers: a stale or forged one cannot reach another project.
 */
export function pinnedLayer(scope: SkillScopeContext, sources: CascadeSources, location: LayerLocation): CascadeLayer {
  const found = cascadeLayers(scope, sources).find((l) => l.source === location.source && l.project === location.project);
  if (!found) throw new InvalidRequest(`Layer ${location.source} '${String(location.project).slice(0, 80)}' is not part of this scope`);
  return found;
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results keep the input order. */
export async function mapWithConcurrency<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
