import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readConfig } from "../config/config.js";
import type { DocumentLayer, DocumentRef, StoredDocument } from "./document-store.js";
import { md5Etag } from "./document-body.js";
import { isValidDocumentPath, validateDocumentPath, validateDocumentPrefix } from "./document-path.js";

/**
 * Candidates relative to this module: `shared/bundled` when running from source (tsx, vitest),
 * `./bundled` next to an esbuild bundle that copies the folder beside its output file.
 */
function defaultRoot(): string {
  const candidates = [new URL("../bundled/", import.meta.url), new URL("./bundled/", import.meta.url)].map((u) => fileURLToPath(u));
  return candidates.find((dir) => existsSync(dir)) ?? candidates[0]!;
}

/** The constructor's root, else SKILLS_BUNDLED_DIR (the stack's copy beside the bundle, a test fixture), else the package's. */
export function resolveBundledRoot(root?: string): string {
  return root ?? readConfig(process.env, ["bundledDir"]).bundledDir ?? defaultRoot();
}

async function walk(root: string, relative: string, into: Map<string, StoredDocument>): Promise<void> {
  const entries = await readdir(join(root, relative), { withFileTypes: true });
  for (const entry of entries) {
    const path = relative ? `${relative}/${entry.name}` : entry.name;
    // Only plain files and directories: a symlink could point anywhere on the host.
    if (entry.isDirectory()) await walk(root, path, into);
    else if (entry.isFile() && isValidDocumentPath(path)) {
      const body = new Uint8Array(await readFile(join(root, path)));
      into.set(path, { path, etag: md5Etag(body), size: body.byteLength, body });
    }
  }
}

/**
 * The RESOURCE layer (the spec's classpath `vance-defaults/`): read once per process and never
 * again, so a change needs a restart (spec §3 "Hot Reload"). Read-only by construction.
 */
export class BundledDocumentLayer implements DocumentLayer {
  readonly root: string;
  private snapshot: Promise<Map<string, StoredDocument>> | undefined;

  constructor(root?: string) {
    this.root = resolveBundledRoot(root);
  }

  private documents(): Promise<Map<string, StoredDocument>> {
    this.snapshot ??= (async () => {
      const documents = new Map<string, StoredDocument>();
      await walk(this.root, "", documents);
      return documents;
    })();
    return this.snapshot;
  }

  async read(path: string): Promise<StoredDocument | undefined> {
    validateDocumentPath(path);
    const doc = (await this.documents()).get(path);
    return doc && { ...doc, body: doc.body.slice() };
  }

  async list(prefix: string): Promise<DocumentRef[]> {
    validateDocumentPrefix(prefix);
    const refs: DocumentRef[] = [];
    for (const { path, etag, size } of (await this.documents()).values()) {
      if (path.startsWith(prefix)) refs.push({ path, etag, size });
    }
    return refs.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}

let processWide: BundledDocumentLayer | undefined;

/** The one bundled layer of this process (default root), shared by every loader. */
export function bundledDocuments(): BundledDocumentLayer {
  processWide ??= new BundledDocumentLayer();
  return processWide;
}
