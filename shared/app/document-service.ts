// The editor API (API.md "Documents"): authorization, paths, limits, the write and what follows it
// (level counters, the catalogue bump), versions and restore. What makes a document valid to save
// is in document-save-rules.ts and its content type in document-content-types.ts (issue 29).
import { noDocumentChangeNotifier, type DocumentChangeNotifier } from "../catalogue/document-change-notifier.js";
import { assertCanReadDocuments, assertCanWriteDocuments } from "../auth/authorization.js";
import type { Identity } from "../auth/identity.js";
import { DocumentNotFound, InvalidRequest, VersionsUnavailable } from "../errors.js";
import { VERSION_ID_PATTERN } from "../recipes/recipe-schema.js";
import { bareEtag } from "../documents/document-body.js";
import { documentDigest } from "../skills/document-digest.js";
import {
  validateDocumentPath,
  validateDocumentPrefix,
  validateProjectName,
  validateWritableDocumentPath,
} from "../documents/document-path.js";
import { capFindings } from "../support/capped-list.js";
import type { DocumentRef, DocumentStore, DocumentVersion, StoredDocument } from "../documents/document-store.js";
import { DEFAULT_DOCUMENT_LIMITS, MAX_DOCUMENT_BYTES } from "./document-limits.js";
import type { LevelPatternHints } from "../catalogue/level-snapshot-patterns.js";
import { storedContentType } from "./document-content-types.js";
import { assertDocumentSize, DocumentSaveRules } from "./document-save-rules.js";
import type { DocumentWarning } from "./document-save-rules.js";
import { countedLevel, listedLevel, recordDeleted, type WriteLevelView } from "./write-level-view.js";
import type { LevelUsage } from "../catalogue/level-usage.js";
import type { DocumentLimits } from "./document-limits.js";

interface DocumentSaved {
  path: string;
  etag: string;
  warnings: DocumentWarning[];
}

/** S3 version ids are opaque printable strings of up to 1024 bytes; anything else cannot name one. */
function validVersionId(versionId: string): string {
  if (!VERSION_ID_PATTERN.test(versionId)) throw new InvalidRequest("versionId must be 1 to 1024 printable ASCII characters");
  return versionId;
}

/**
 * The editor API (API.md "Documents") over a DocumentStore: the authorization table for
 * documents, and the rule that a SKILL.md or recipe is only saved when the loader would accept
 * it — validated with the loader's own parsers, so "saved" and "loadable" cannot drift apart.
 * An invalid one is `InvalidDocument` (422 with every problem) and nothing is written.
 */
export class DocumentService {
  private readonly rules: DocumentSaveRules;

  /**
   * `notify` runs after every successful write, before the caller gets its answer, so the warm
   * catalogue of every instance sees the edit on its next turn (catalogueChangeNotifier).
   */
  constructor(
    private readonly store: DocumentStore,
    private readonly notify: DocumentChangeNotifier = noDocumentChangeNotifier,
    private readonly limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS,
    /** Per-level counters (issue 27): a write then reads no listing and no other skill. Without them, the level is listed. */
    private readonly usage?: LevelUsage,
    /** PATTERN counts from the level snapshot for the counters' one-time seed (issue 27); without them the seed reads every SKILL.md. */
    private readonly seedHints?: LevelPatternHints,
  ) {
    this.rules = new DocumentSaveRules(store);
  }

  private levelFor(tenant: string, project: string, path: string): Promise<WriteLevelView> {
    return this.usage
      ? countedLevel(this.store, this.usage, tenant, project, path, this.seedHints)
      : listedLevel(this.store, tenant, project, path);
  }

  /** `mode`: the file's permission bits (document-mode.ts), kept so a pull restores them. */
  async put(
    identity: Identity,
    tenant: string,
    project: string,
    path: string,
    body: Uint8Array,
    contentType?: string,
    mode?: number,
  ): Promise<DocumentSaved> {
    assertCanWriteDocuments(identity, tenant, project);
    validateProjectName(project);
    validateWritableDocumentPath(path);
    assertDocumentSize(path, body);
    const level = await this.levelFor(tenant, project, path);
    const { warnings, patterns } = await this.rules.check(tenant, project, path, body, level);
    level.assertWithinLimits(this.limits, project, path, body.byteLength);
    const saved = await this.store.put(tenant, project, path, body, storedContentType(contentType), {
      writtenBy: identity.login,
      ...(mode !== undefined ? { mode } : {}),
    });
    // The digest rides on the level's entry (no request of its own): MCP manifests and the skill detail read it.
    await level.record({ size: body.byteLength, patterns, digest: documentDigest(path, bareEtag(saved.etag), body) });
    await this.notify({ tenant, project, path });
    return { path: saved.path, etag: saved.etag, warnings: capFindings(warnings) };
  }

  async get(identity: Identity, tenant: string, project: string, path: string): Promise<StoredDocument> {
    assertCanReadDocuments(identity, tenant, project);
    validateProjectName(project);
    const doc = await this.store.get(tenant, project, validateDocumentPath(path));
    if (!doc) throw new DocumentNotFound(path);
    return doc;
  }

  /** The next lookup of this path falls through to the next outer cascade level. */
  async delete(identity: Identity, tenant: string, project: string, path: string): Promise<void> {
    assertCanWriteDocuments(identity, tenant, project);
    validateProjectName(project);
    validateDocumentPath(path);
    const before = this.usage && (await this.usage.read(tenant, project, path))?.entry;
    if (!(await this.store.delete(tenant, project, path))) throw new DocumentNotFound(path);
    if (this.usage) await recordDeleted(this.usage, tenant, project, path, before);
    await this.notify({ tenant, project, path });
  }

  /** API.md "Author's loop": the document's versions, newest first. VERSIONS_UNAVAILABLE without a versioned store. */
  async versions(identity: Identity, tenant: string, project: string, path: string): Promise<DocumentVersion[]> {
    assertCanReadDocuments(identity, tenant, project);
    validateProjectName(project);
    validateDocumentPath(path);
    const versions = this.store.keepsVersions ? await this.store.versions?.(tenant, project, path) : undefined;
    if (versions === undefined) throw new VersionsUnavailable();
    return versions;
  }

  /**
   * One version's body; DOCUMENT_NOT_FOUND for a version the document does not have. The store says
   * up front whether it keeps versions, so a hit and a miss each cost one read (no listing).
   */
  async getVersion(identity: Identity, tenant: string, project: string, path: string, versionId: string): Promise<StoredDocument> {
    assertCanReadDocuments(identity, tenant, project);
    validateProjectName(project);
    validateDocumentPath(path);
    validVersionId(versionId);
    if (!this.store.keepsVersions || !this.store.getVersion) throw new VersionsUnavailable();
    // Capped like a PUT: a version written around the API may be larger than a function can hold or answer.
    const doc = await this.store.getVersion(tenant, project, path, versionId, { maxBytes: MAX_DOCUMENT_BYTES });
    if (!doc) throw new DocumentNotFound(`${path} (version '${versionId.slice(0, 80)}')`);
    return doc;
  }

  /**
   * Writes a version back as the newest: validated, size-capped and counted like any PUT (so a
   * version that no longer validates is 422, one larger than a PUT may be is 400, and nothing is
   * written), catalogue bumped through put's notify.
   */
  async restore(identity: Identity, tenant: string, project: string, path: string, versionId: string): Promise<DocumentSaved> {
    assertCanWriteDocuments(identity, tenant, project);
    validateWritableDocumentPath(path);
    const doc = await this.getVersion(identity, tenant, project, path, versionId);
    return this.put(identity, tenant, project, path, doc.body, doc.contentType, doc.mode);
  }

  /** Paths relative to the project, sorted. */
  async list(identity: Identity, tenant: string, project: string, prefix = ""): Promise<DocumentRef[]> {
    assertCanReadDocuments(identity, tenant, project);
    validateProjectName(project);
    const refs = await this.store.list(tenant, project, validateDocumentPrefix(prefix));
    return refs.map(({ path, etag, size }) => ({ path, etag, size }));
  }
}
