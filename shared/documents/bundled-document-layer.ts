import { existsSync, readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
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

/**
 * The asset build's parse outcomes of the bundled level (infra/write-lambda-asset.ts, issue 27):
 * a file beside the folder, `<root>.prepared.json.gz`, so no walk of the folder ever sees it.
 */
export const bundledPreparedFile = (root: string): string => `${root.replace(/[\\/]+$/, "")}.prepared.json.gz`;

function walk(root: string, relative: string, into: Map<string, StoredDocument>): void {
  for (const entry of readdirSync(join(root, relative), { withFileTypes: true })) {
    const path = relative ? `${relative}/${entry.name}` : entry.name;
    // Only plain files and directories: a symlink could point anywhere on the host.
    if (entry.isDirectory()) walk(root, path, into);
    else if (entry.isFile() && isValidDocumentPath(path)) {
      const body = new Uint8Array(readFileSync(join(root, path)));
      into.set(path, { path, etag: md5Etag(body), size: body.byteLength, body });
    }
  }
}

/**
 * Every document under `root` by path, as the RESOURCE layer serves them. Synchronous because the
 * asset build is (CDK's local bundling): both read the folder through this one walk, so the ETags
 * the build writes are the ones the layer lists. A handful of small files, read once per process.
 */
export function readBundledDocuments(root: string): Map<string, StoredDocument> {
  const documents = new Map<string, StoredDocument>();
  walk(root, "", documents);
  return documents;
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
    this.snapshot ??= Promise.resolve().then(() => readBundledDocuments(this.root));
    return this.snapshot;
  }

  /** The bytes of the build's prepared outcomes (bundledPreparedFile); undefined without one (running from source). */
  async readPrepared(): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(bundledPreparedFile(this.root)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
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
