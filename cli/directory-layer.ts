import { existsSync } from "node:fs";
import { join } from "node:path";
import { BundledDocumentLayer } from "../shared/documents/bundled-document-layer.js";
import type { DocumentLayer, DocumentRef, StoredDocument } from "../shared/documents/document-store.js";
import { SKILLS_PREFIX } from "../shared/skills/skill-paths.js";

/**
 * A folder on disk seen as one cascade layer. Accepts either a project root (holding
 * `_vance/skills/…`) or a plain folder of skill directories (`<root>/<name>/SKILL.md`), which is
 * how authors usually keep skills in a repository.
 */
export function directoryLayer(root: string): DocumentLayer {
  if (existsSync(join(root, SKILLS_PREFIX))) return new BundledDocumentLayer(root);
  const inner = new BundledDocumentLayer(root);
  const strip = (path: string): string | undefined => (path.startsWith(SKILLS_PREFIX) ? path.slice(SKILLS_PREFIX.length) : undefined);
  return {
    async read(path: string): Promise<StoredDocument | undefined> {
      const relative = strip(path);
      if (relative === undefined || relative === "") return undefined;
      const doc = await inner.read(relative);
      return doc && { ...doc, path };
    },
    async list(prefix: string): Promise<DocumentRef[]> {
      const relative = strip(prefix);
      if (relative === undefined) return [];
      const refs = await inner.list("");
      return refs.filter((r) => r.path.startsWith(relative)).map((r) => ({ ...r, path: `${SKILLS_PREFIX}${r.path}` }));
    },
  };
}

/**
 * One skill folder (`<folder>/SKILL.md`) seen as a layer holding that skill alone, as
 * `_vance/skills/<name>/…`: `skills render <skill-folder>` reads nothing beside it (issue 30: the
 * parent used to be walked, seconds for a big collection, and a broken sibling failed the render).
 */
export function skillFolderLayer(folder: string, name: string): DocumentLayer {
  const inner = new BundledDocumentLayer(folder);
  const prefix = `${SKILLS_PREFIX}${name}/`;
  return {
    async read(path: string): Promise<StoredDocument | undefined> {
      if (!path.startsWith(prefix) || path === prefix) return undefined;
      const doc = await inner.read(path.slice(prefix.length));
      return doc && { ...doc, path };
    },
    async list(listed: string): Promise<DocumentRef[]> {
      // The skill's own files only; any other prefix of the cascade holds nothing here.
      if (!prefix.startsWith(listed) && !listed.startsWith(prefix)) return [];
      const refs = await inner.list(listed.startsWith(prefix) ? listed.slice(prefix.length) : "");
      return refs.map((r) => ({ ...r, path: `${prefix}${r.path}` }));
    },
  };
}

/**
 * Where a `_vance/skills/…` key of directoryLayer(root) lies on disk, so messages cite the file
 * an author can open rather than the key it would have on the service.
 */
export function diskPathOf(root: string, key: string): string {
  if (existsSync(join(root, SKILLS_PREFIX)) || !key.startsWith(SKILLS_PREFIX)) return join(root, key);
  return join(root, key.slice(SKILLS_PREFIX.length));
}
