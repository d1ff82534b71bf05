import { isServiceTool } from "./service-tool-names.js";

/**
 * The tool whitelist and manual paths of a turn (spec §5b, §2 `manualPaths`). Order-preserving
 * and deduplicated; names pass through unchanged.
 *
 * Pass only registered (sticky or --once) skills: a `lifecycle: shot` skill never registers and
 * therefore contributes no tools.
 */

interface ToolUnionInput {
  engineTools: readonly string[];
  recipeAdd?: readonly string[] | undefined;
  recipeRemove?: readonly string[] | undefined;
  /** Active skills in activation order. */
  skills: readonly { readonly tools: readonly string[] }[];
}

/**
 * `(engine ∪ recipe.add) \ recipe.remove ∪ ⋃ (skill.tools \ service tools)`. Skills are applied
 * after the removal: a skill that needs a tool the recipe removed gets it, because a skill without
 * its tool is broken. A service tool is never a skill's to grant (service-tool-names.ts): the
 * engine, the recipe or the service's own rules add it.
 */
export function composeTools({ engineTools, recipeAdd = [], recipeRemove = [], skills }: ToolUnionInput): string[] {
  const removed = new Set(recipeRemove);
  const tools = new Set<string>();
  for (const tool of [...engineTools, ...recipeAdd]) {
    if (!removed.has(tool)) tools.add(tool);
  }
  for (const skill of skills) {
    for (const tool of skill.tools) if (!isServiceTool(tool)) tools.add(tool);
  }
  return [...tools];
}

interface ManualPathsInput {
  /** The recipe's `params.manualPaths`: they take precedence, so they come first. */
  recipePaths?: readonly string[] | undefined;
  /** Active skills in activation order; their paths are already sanitized by the loader. */
  skills: readonly { readonly manualPaths: readonly string[] }[];
}

export function composeManualPaths({ recipePaths = [], skills }: ManualPathsInput): string[] {
  return [...new Set([...recipePaths, ...skills.flatMap((skill) => skill.manualPaths)])];
}
