import type { DocumentProblem } from "../errors.js";
import { strictUtf8 } from "../documents/document-body.js";
import { cascadeLayers, mapWithConcurrency } from "../documents/cascade-layers.js";
import type { CascadeLayer, CascadeSources } from "../documents/cascade-layers.js";
import type { DocumentRef, StoredDocument } from "../documents/document-store.js";
import type { SkillScope, SkillScopeContext } from "../skills/skill-scope.js";
import { SKILL_SCOPES_INNER_FIRST } from "../skills/skill-scope.js";
import { MAX_RECIPE_BYTES, parseRecipeDocument } from "./recipe-document-parser.js";
import { RECIPES_PREFIX, isRecipeName, recipeDocumentPath, recipeNameOf } from "./recipe-paths.js";
import type { Recipe, RecipeDefinition } from "./recipe-schema.js";

export type RecipeLoaderOptions = CascadeSources;

/** A recipe document the cascade skipped, and why. */
export interface RecipeProblem {
  name: string;
  source: SkillScope;
  path: string;
  line?: number | undefined;
  message: string;
}

type Lookup =
  | { kind: "absent" }
  | { kind: "defective"; problems: RecipeProblem[] }
  | { kind: "found"; recipe: RecipeDefinition; warnings: DocumentProblem[]; etag: string };

/** Parallel reads during a listing: enough to hide latency, few enough not to queue SDK sockets. */
const LISTING_CONCURRENCY = 16;

const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const layerRank = (source: SkillScope): number => SKILL_SCOPES_INNER_FIRST.indexOf(source);
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Resolves `_vance/recipes/<name>.yaml` through the same cascade as skills (spec §3): USER →
 * PROJECT → VANCE (`_tenant`) → RESOURCE (bundled); the first usable document wins. A defective
 * recipe (unreadable, not UTF-8, too large, failing to parse or validate) is treated as absent, so
 * the lookup falls through to the next outer layer, and problems() reports it. Only a failing
 * store or a malformed scope makes load() or listAvailable() throw.
 */
export class RecipeLoader {
  private readonly sources: CascadeSources;

  constructor(options: RecipeLoaderOptions) {
    this.sources = { store: options.store, bundled: options.bundled };
  }

  async load(scope: SkillScopeContext, name: string): Promise<Recipe | undefined> {
    const layers = cascadeLayers(scope, this.sources);
    if (!isRecipeName(name)) return undefined;
    return this.resolveName(layers, name, undefined, []);
  }

  /** Union of all layers, deduplicated by name (inner wins), defective ones removed, sorted by name. */
  async listAvailable(scope: SkillScopeContext): Promise<Recipe[]> {
    return (await this.scan(scope)).recipes;
  }

  /** Every recipe document the cascade skipped, and why. */
  async problems(scope: SkillScopeContext): Promise<RecipeProblem[]> {
    return (await this.scan(scope)).problems;
  }

  private async scan(scope: SkillScopeContext): Promise<{ recipes: Recipe[]; problems: RecipeProblem[] }> {
    const layers = cascadeLayers(scope, this.sources);
    const problems: RecipeProblem[] = [];
    const listings = await Promise.all(
      layers.map(async (l) => new Map((await l.layer.list(RECIPES_PREFIX)).map((ref): [string, DocumentRef] => [ref.path, ref]))),
    );
    const names = new Set<string>();
    layers.forEach((l, i) => {
      for (const path of listings[i]!.keys()) {
        const stem = recipeNameOf(path);
        if (stem === undefined) continue;
        if (isRecipeName(stem)) names.add(stem);
        else {
          problems.push({
            name: stem,
            source: l.source,
            path,
            message: `invalid recipe file name '${stem}': lowercase letters, digits and hyphens, at most 64, not starting or ending with a hyphen`,
          });
        }
      }
    });
    const sorted = [...names].sort(byCodePoint);
    const resolved = await mapWithConcurrency(sorted, LISTING_CONCURRENCY, (name) => this.resolveName(layers, name, listings, problems));
    problems.sort((a, b) => byCodePoint(a.name, b.name) || layerRank(a.source) - layerRank(b.source));
    return { recipes: resolved.filter((r): r is Recipe => r !== undefined), problems };
  }

  /** With listings (a listing call), a layer without the document is skipped without a read. */
  private async resolveName(
    layers: readonly CascadeLayer[],
    name: string,
    listings: readonly ReadonlyMap<string, DocumentRef>[] | undefined,
    problems: RecipeProblem[],
  ): Promise<Recipe | undefined> {
    const path = recipeDocumentPath(name);
    for (const [i, at] of layers.entries()) {
      if (listings && !listings[i]?.has(path)) continue;
      const lookup = await this.lookup(at, name, path);
      if (lookup.kind === "absent") continue;
      if (lookup.kind === "defective") {
        problems.push(...lookup.problems);
        continue;
      }
      return {
        ...lookup.recipe,
        source: at.source,
        location: { source: at.source, project: at.project, etag: lookup.etag },
        warnings: lookup.warnings,
      };
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
    if (doc.body.byteLength > MAX_RECIPE_BYTES) return defect(`is larger than ${MAX_RECIPE_BYTES} bytes`);
    const text = strictUtf8(doc.body);
    if (text === undefined) return defect("is not UTF-8 text (invalid byte sequence or binary content)");
    const parsed = parseRecipeDocument(name, text, path);
    const errors = parsed.problems.filter((p) => p.severity === "error");
    if (!parsed.recipe || errors.length > 0) {
      if (errors.length === 0) return defect("is not a valid recipe document");
      return {
        kind: "defective",
        problems: errors.map((p) => ({ name, source: at.source, path, ...(p.line !== undefined ? { line: p.line } : {}), message: p.message })),
      };
    }
    return { kind: "found", recipe: parsed.recipe, warnings: parsed.problems.filter((p) => p.severity !== "error"), etag: doc.etag };
  }
}
