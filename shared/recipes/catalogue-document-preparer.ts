import type { DocumentPreparer } from "../documents/cascade-layers.js";
import { parseCascadeDocument } from "../documents/cascade-resolver.js";
import { skillDocumentPreparer } from "../skills/skill-loader.js";
import { recipeKind } from "./recipe-loader.js";
import { isRecipeName, recipeNameOf } from "./recipe-paths.js";

/**
 * What a level snapshot keeps of a recipe: its whole parse outcome (a recipe has no body to leave
 * out), so a turn's recipe lookup reads and parses no YAML on a cold instance — the bundled
 * `default.yaml` included (its outcome is written at build time, infra/write-lambda-asset.ts).
 */
export const recipeDocumentPreparer: DocumentPreparer = {
  handles: (path) => recipeNameOf(path) !== undefined,
  prepare: (path, doc) => {
    const name = recipeNameOf(path);
    if (name === undefined || !isRecipeName(name))
      return { ok: false, findings: [{ message: recipeKind.invalidNameMessage(name ?? path) }] };
    return parseCascadeDocument(recipeKind, doc, name, path);
  },
};

/**
 * The catalogue's preparer: skills (definitions without their body, plus the level's PATTERN
 * literals) and recipes (whole). Each path is handled by at most one of them.
 */
export const catalogueDocumentPreparer: DocumentPreparer = {
  handles: (path) => skillDocumentPreparer.handles(path) || recipeDocumentPreparer.handles(path),
  prepare: (path, doc) =>
    skillDocumentPreparer.handles(path) ? skillDocumentPreparer.prepare(path, doc) : recipeDocumentPreparer.prepare(path, doc),
  ...(skillDocumentPreparer.levelExtras ? { levelExtras: skillDocumentPreparer.levelExtras } : {}),
};
