import type { CascadeLayer, CascadeLevel } from "../documents/cascade-layers.js";
import { validateDocumentPath, validateDocumentPrefix } from "../documents/document-path.js";
import type { DocumentLayer, DocumentRef, StoredDocument } from "../documents/document-store.js";
import { messageOf } from "../documents/cascade-resolver.js";
import { CATALOGUE_PREFIX } from "./catalogue-versions.js";

/** A body above this is read again on every lookup instead of being kept (only a defective document is that big). */
const MAX_KEPT_BODY_BYTES = 2 * 1024 * 1024;

export interface CatalogueLogger {
  warn(message: string, ...extra: Record<string, unknown>[]): void;
}

/** One listing of a level's `_vance/` documents. Immutable: a changed listing is a new snapshot. */
export interface LevelSnapshot {
  readonly refs: readonly DocumentRef[];
  /** The level as a cascade layer answering from this listing and the level's bodies. */
  readonly cascadeLayer: CascadeLayer;
}

const sameRefs = (a: readonly DocumentRef[], b: readonly DocumentRef[]): boolean =>
  a.length === b.length && a.every((ref, i) => ref.path === b[i]!.path && ref.etag === b[i]!.etag);

/**
 * What a warm instance keeps of one level of one tenant: the latest listing of `_vance/`, the
 * version token it was taken at, and the bodies read from it, each kept under its ETag so a
 * document is fetched again only when its ETag changed. Reads outside `_vance/` pass through.
 */
export class CatalogueLevel {
  /** Version token `snapshot` reflects; undefined when it was listed without a known version. */
  token: string | undefined;
  snapshot: LevelSnapshot | undefined;
  private readonly bodies = new Map<string, StoredDocument>();
  private readonly reading = new Map<string, Promise<StoredDocument | undefined>>();
  private refreshing: { token: string | undefined; promise: Promise<LevelSnapshot> } | undefined;

  constructor(
    readonly level: CascadeLevel,
    private readonly raw: DocumentLayer,
    private readonly logger: CatalogueLogger,
  ) {}

  /**
   * Lists the level again. A caller with the same known version joins a listing already under
   * way: it was started after someone read that version, so it reflects every write the version
   * counts. The snapshot object is kept when the listing did not change (stable identities).
   */
  refresh(token: string | undefined): Promise<LevelSnapshot> {
    if (token !== undefined && this.refreshing?.token === token) return this.refreshing.promise;
    const promise = this.raw.list(CATALOGUE_PREFIX).then((refs) => this.install(refs, token));
    const entry = { token, promise };
    this.refreshing = entry;
    const settle = (): void => {
      if (this.refreshing === entry) this.refreshing = undefined;
    };
    promise.then(settle, settle);
    return promise;
  }

  private install(refs: DocumentRef[], token: string | undefined): LevelSnapshot {
    const current = this.snapshot;
    const snapshot = current && sameRefs(current.refs, refs) ? current : this.snapshotOf(refs);
    this.snapshot = snapshot;
    this.token = token;
    const listing = snapshot.cascadeLayer.listing!;
    for (const path of [...this.bodies.keys()]) if (!listing.has(path)) this.bodies.delete(path);
    return snapshot;
  }

  private snapshotOf(refs: DocumentRef[]): LevelSnapshot {
    const frozen = Object.freeze(refs.map((ref) => Object.freeze({ path: ref.path, etag: ref.etag, size: ref.size })));
    const listing: ReadonlyMap<string, DocumentRef> = new Map(frozen.map((ref) => [ref.path, ref]));
    const layer: DocumentLayer = {
      read: (path) => this.read(path, listing),
      list: async (prefix) => {
        validateDocumentPrefix(prefix);
        if (!prefix.startsWith(CATALOGUE_PREFIX)) return this.raw.list(prefix);
        return frozen.filter((ref) => ref.path.startsWith(prefix));
      },
    };
    return { refs: frozen, cascadeLayer: { ...this.level, layer, listing } };
  }

  /** Absent unless listed; a kept body with the listed ETag is served without a read. */
  private async read(path: string, listing: ReadonlyMap<string, DocumentRef>): Promise<StoredDocument | undefined> {
    validateDocumentPath(path);
    if (!path.startsWith(CATALOGUE_PREFIX)) return this.raw.read(path);
    const ref = listing.get(path);
    if (!ref) return undefined;
    const kept = this.bodies.get(path);
    if (kept && kept.etag === ref.etag) return kept;
    const key = `${path}\u0000${ref.etag}`;
    let pending = this.reading.get(key);
    if (!pending) {
      pending = this.fetch(path, kept);
      this.reading.set(key, pending);
      const settle = (): void => {
        this.reading.delete(key);
      };
      pending.then(settle, settle);
    }
    return pending;
  }

  private async fetch(path: string, kept: StoredDocument | undefined): Promise<StoredDocument | undefined> {
    let doc: StoredDocument | undefined;
    try {
      doc = await this.raw.read(path);
    } catch (error) {
      if (!kept) throw error;
      // The store failed: the version read before is better than a skill vanishing from the turn.
      this.logger.warn("Catalogue serves an older body: the store could not be read", {
        project: this.level.project,
        path,
        etag: kept.etag,
        error: messageOf(error),
      });
      return kept;
    }
    if (!doc) {
      this.bodies.delete(path);
      return undefined;
    }
    if (doc.body.byteLength <= MAX_KEPT_BODY_BYTES) this.bodies.set(path, doc);
    return doc;
  }
}
