import type { CascadeSources } from "../documents/cascade-layers.js";
import { CascadeDocuments } from "../documents/cascade-documents.js";
import type { CascadeDocumentKind, CascadeProblem } from "../documents/cascade-resolver.js";
import type { SkillScopeContext } from "../documents/cascade-scope.js";
import { MAX_RECIPE_BYTES, parseRecipeDocument } from "./recipe-document-parser.js";
import { RECIPES_PREFIX, isRecipeName, recipeDocumentPath, recipeNameOf } from "./recipe-paths.js";
import type { Recipe, RecipeDefinition } from "./recipe-schema.js";

/** The store, the RESOURCE layer and optionally the warm catalogue (as for SkillLoader). */
type RecipeLoaderOptions = CascadeSources;

/** A recipe document the cascade skipped, and why. */
type RecipeProblem = CascadeProblem;

/** `_vance/recipes/<name>.yaml` as a kind of cascade document. */
export const recipeKind: CascadeDocumentKind<RecipeDefinition, Recipe> = {
  prefix: RECIPES_PREFIX,
  nameOf: recipeNameOf,
  isName: isRecipeName,
  documentPath: recipeDocumentPath,
  invalidNameMessage: (stem) =>
    `invalid recipe file name '${stem}': lowercase letters, digits and hyphens, at most 64, not starting or ending with a hyphen`,
  maxBytes: MAX_RECIPE_BYTES,
  invalidDocumentMessage: "is not a valid recipe document",
  parse: (name, text, path) => {
    const parsed = parseRecipeDocument(name, text, path);
    return { definition: parsed.recipe, problems: parsed.problems };
  },
  isEnabled: () => true,
  // A level snapshot keeps the whole recipe (shared/recipes/catalogue-document-preparer.ts).
  preparedIsWhole: true,
  // Object.assign, not `{ ...definition, source, … }`: on Node 20 that spread gives every recipe
  // (one per turn) a hidden class of its own, which the scavenger then promotes. Same keys, same order.
  materialize: async ({ at, definition, warnings, etag }) =>
    Object.assign({}, definition, {
      source: at.source,
      location: { source: at.source, project: at.project, etag },
      warnings,
    }),
};

/**
 * Resolves `_vance/recipes/<name>.yaml` through the same cascade as skills (spec §3): USER →
 * PROJECT → VANCE (`_tenant`) → RESOURCE (bundled); the first usable document wins. A defective
 * recipe (unreadable, not UTF-8, too large, failing to parse or validate) is treated as absent, so
 * the lookup falls through to the next outer layer, and problems() reports it. Only a failing
 * store or a malformed scope makes load() or listAvailable() throw.
 */
export class RecipeLoader {
  private readonly documents: CascadeDocuments<RecipeDefinition, Recipe>;

  constructor(options: RecipeLoaderOptions) {
    this.documents = new CascadeDocuments(recipeKind, { store: options.store, bundled: options.bundled, catalogue: options.catalogue });
  }

  load(scope: SkillScopeContext, name: string): Promise<Recipe | undefined> {
    return this.documents.load(scope, name);
  }

  /** Union of all layers, deduplicated by name (inner wins), defective ones removed, sorted by name. */
  async listAvailable(scope: SkillScopeContext): Promise<Recipe[]> {
    return (await this.documents.scan(scope)).items;
  }

  /** Every recipe document the cascade skipped, and why. */
  async problems(scope: SkillScopeContext): Promise<RecipeProblem[]> {
    return (await this.documents.scan(scope)).problems;
  }
}
