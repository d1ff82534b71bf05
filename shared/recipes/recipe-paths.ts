import { SKILL_NAME_PATTERN } from "../skills/skill-frontmatter.js";

/** Where recipes live inside every cascade layer: `_vance/recipes/<name>.yaml`. */
export const RECIPES_PREFIX = "_vance/recipes/";
const RECIPE_EXTENSION = ".yaml";

/** Recipe names follow the skill name rule, so they are safe as one path segment. */
export const isRecipeName = (name: string): boolean => typeof name === "string" && SKILL_NAME_PATTERN.test(name);

export const recipeDocumentPath = (name: string): string => `${RECIPES_PREFIX}${name}${RECIPE_EXTENSION}`;

const RECIPE_DOCUMENT_PATH = /^_vance\/recipes\/([^/]+)\.yaml$/;

/** The file name stem of a `_vance/recipes/<stem>.yaml` path (not yet checked as a recipe name). */
export function recipeNameOf(path: string): string | undefined {
  return RECIPE_DOCUMENT_PATH.exec(path)?.[1];
}
