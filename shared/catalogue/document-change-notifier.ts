import { validateDocumentPath, validateProjectName, validateTenantId } from "../documents/document-path.js";
import { affectsCatalogue, type CatalogueVersions } from "./catalogue-versions.js";

export interface DocumentChange {
  tenant: string;
  /** A project id, `_tenant` or `_user_<login>`. */
  project: string;
  /** Path relative to the project, e.g. `_vance/skills/code-review/SKILL.md`. */
  path: string;
}

/**
 * Called by the documents service after a successful PUT or DELETE, before it answers: once the
 * caller has its answer, the level's version has moved, so the next turn anywhere sees the edit.
 * Resolves to whether a version was bumped (only `_vance/` documents make up the catalogue).
 */
export type DocumentChangeNotifier = (change: DocumentChange) => Promise<boolean>;

export function catalogueChangeNotifier(versions: CatalogueVersions): DocumentChangeNotifier {
  return async ({ tenant, project, path }) => {
    validateTenantId(tenant);
    validateProjectName(project);
    if (!affectsCatalogue(validateDocumentPath(path))) return false;
    await versions.bump(tenant, project);
    return true;
  };
}

/** For a documents service without a catalogue (tests, local stack without versions). */
export const noDocumentChangeNotifier: DocumentChangeNotifier = async () => false;
