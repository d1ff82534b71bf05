import { randomUUID } from "node:crypto";
import type { CascadeLayer, CascadeLevel, DocumentPreparer, PreparedDocument } from "../documents/cascade-layers.js";
import { validateDocumentPath, validateDocumentPrefix } from "../documents/document-path.js";
import type { DocumentLayer, DocumentRef, StoredDocument } from "../documents/document-store.js";
import { messageOf } from "../documents/cascade-resolver.js";
import { CATALOGUE_PREFIX, EMPTY_LEVEL_SNAPSHOT, type CatalogueVersions, type LevelVersion } from "./catalogue-versions.js";
import { decodeLevelSnapshot, encodeLevelSnapshot, type LevelSnapshotContent } from "./level-snapshot-codec.js";
import { levelSnapshotKey, type LevelSnapshotStore } from "./level-snapshot-store.js";
import type { Logger } from "../support/logger.js";
import { prepareLevelOutcomes } from "./prepare-level-outcomes.js";

/** What a store level needs to read and write its snapshot (issue 27); absent for the RESOURCE level. */
export interface LevelSnapshotAccess {
  tenant: string;
  store: LevelSnapshotStore;
  versions: CatalogueVersions;
  /** False: read snapshots only (a function without the grants to write one or move the pointer). */
  writes?: boolean | undefined;
}

/** A body above this is read again on every lookup instead of being kept (only a defective document is that big). */
const MAX_KEPT_BODY_BYTES = 2 * 1024 * 1024;

/** One listing of a level's `_vance/` documents. Immutable: a changed listing is a new snapshot. */
export interface LevelSnapshot {
  readonly refs: readonly DocumentRef[];
  /** The level as a cascade layer answering from this listing and the level's bodies. */
  readonly cascadeLayer: CascadeLayer;
  /** Parse outcomes by path (with a preparer): what a level snapshot stores besides `refs`. */
  readonly prepared?: ReadonlyMap<string, PreparedDocument> | undefined;
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
    private readonly logger: Pick<Logger, "warn">,
    private readonly preparer?: DocumentPreparer,
    private readonly snapshots?: LevelSnapshotAccess,
    /** Outcomes prepared elsewhere, kept by ETag like a stored snapshot's (the RESOURCE level: once per process). */
    private readonly seed?: () => Promise<ReadonlyMap<string, PreparedDocument> | undefined>,
  ) {}

  /**
   * Lists the level again. A caller with the same known version joins a listing already under
   * way: it was started after someone read that version, so it reflects every write the version
   * counts. The snapshot object is kept when the listing did not change (stable identities).
   *
   * With a preparer, every SKILL.md of the listing gets its parse outcome (kept ones by ETag, the
   * rest read and parsed once); a cold level without a stored snapshot keeps those of its `seed`
   * by ETag too. With snapshot access, a cold level whose stored snapshot is at `version` is
   * installed from that one object (no listing, no document read); a missing, stale or unreadable
   * one is listed, diffed by ETag against what the stored one still tells, and written anew
   * (conditionally on the version item: a stale rebuild never wins).
   */
  refresh(token: string | undefined, version?: LevelVersion): Promise<LevelSnapshot> {
    if (token !== undefined && this.refreshing?.token === token) return this.refreshing.promise;
    const promise = this.load(token, version);
    const entry = { token, promise };
    this.refreshing = entry;
    const settle = (): void => {
      if (this.refreshing === entry) this.refreshing = undefined;
    };
    promise.then(settle, settle);
    return promise;
  }

  private async load(token: string | undefined, version: LevelVersion | undefined): Promise<LevelSnapshot> {
    const cold = this.snapshot === undefined;
    const pointer = version?.snapshot;
    let stored: LevelSnapshotContent | undefined;
    let unreadable: string | undefined;
    if (cold && this.snapshots && this.preparer && pointer && token !== undefined) {
      // A level that had no catalogue document at this version: nothing to GET.
      if (pointer.key === EMPTY_LEVEL_SNAPSHOT && pointer.version === version.version && pointer.changedAt === version.changedAt)
        return this.install([], token, new Map());
      if (pointer.key !== EMPTY_LEVEL_SNAPSHOT) ({ stored, unreadable } = await this.readStored(pointer.key));
      if (stored?.extras !== undefined) this.preparer.levelExtras?.use(stored.extras, stored);
      if (stored && version && stored.version === version.version && stored.changedAt === version.changedAt) {
        return this.install(stored.refs, token, stored.prepared, true);
      }
    }
    const refs = await this.raw.list(CATALOGUE_PREFIX);
    const known = stored?.prepared ?? this.snapshot?.prepared ?? (this.preparer && (await this.seed?.()));
    const prepared = this.preparer ? await this.prepareAll(refs, known) : undefined;
    const snapshot = this.install(refs, token, prepared);
    if (
      cold &&
      prepared &&
      version &&
      token !== undefined &&
      (pointer === undefined || pointer.version < version.version || unreadable !== undefined)
    ) {
      const extras = this.preparer?.levelExtras?.of({ refs: snapshot.refs, prepared });
      await this.write(
        {
          version: version.version,
          changedAt: version.changedAt,
          refs: snapshot.refs,
          prepared,
          ...(extras === undefined ? {} : { extras }),
        },
        unreadable,
      );
    }
    return snapshot;
  }

  /** The stored snapshot, or why not: missing (deleted by a newer writer) or unreadable (rewritten, replacing it). */
  private async readStored(key: string): Promise<{ stored?: LevelSnapshotContent; unreadable?: string }> {
    try {
      const bytes = await this.snapshots!.store.get(key);
      if (bytes !== undefined) return { stored: decodeLevelSnapshot(bytes) };
      this.logger.warn("Level snapshot missing: listing the level", { project: this.level.project, key });
      return {};
    } catch (error) {
      this.logger.warn("Level snapshot unreadable: listing the level and writing it again", {
        project: this.level.project,
        key,
        error: messageOf(error),
      });
      return { unreadable: key };
    }
  }

  /**
   * Stores the snapshot and moves the level's pointer to it; a failure only costs the next cold
   * start a listing. An empty level gets a pointer without an object (its cold readers GET nothing).
   */
  private async write(content: LevelSnapshotContent, unreadable: string | undefined): Promise<void> {
    const access = this.snapshots;
    if (!access?.versions.pointSnapshot || access.writes === false) return;
    const empty = content.refs.length === 0;
    const key = empty ? EMPTY_LEVEL_SNAPSHOT : levelSnapshotKey(access.tenant, this.level.project, content.version, randomUUID());
    try {
      if (!empty) await access.store.put(key, encodeLevelSnapshot(content));
      const move = await access.versions.pointSnapshot(
        access.tenant,
        this.level.project,
        { version: content.version, key, changedAt: content.changedAt },
        unreadable,
      );
      // The loser's object, or the winner's predecessor, is no one's snapshot any more. The
      // predecessor is the one the pointer write replaced, not the one read before it: a racing
      // rebuild may have pointed the level at its own object in between.
      const orphan = move.moved ? move.replaced : key;
      if (orphan !== undefined && orphan !== EMPTY_LEVEL_SNAPSHOT) await access.store.delete(orphan).catch(() => undefined);
    } catch (error) {
      this.logger.warn("Level snapshot not written: the next cold start lists the level", {
        project: this.level.project,
        error: messageOf(error),
      });
    }
  }

  /** Parse outcomes of the listing's prepared documents: kept ones by ETag, the others read (bodies kept) and parsed. */
  private prepareAll(
    refs: readonly DocumentRef[],
    known: ReadonlyMap<string, PreparedDocument> | undefined,
  ): Promise<Map<string, PreparedDocument>> {
    const listing: ReadonlyMap<string, DocumentRef> = new Map(refs.map((ref) => [ref.path, ref]));
    return prepareLevelOutcomes(refs, known, this.preparer!, (path) => this.read(path, listing));
  }

  /** `decoded`: `refs` come from decodeLevelSnapshot, frozen copies already. */
  private install(
    refs: readonly DocumentRef[],
    token: string | undefined,
    prepared?: ReadonlyMap<string, PreparedDocument>,
    decoded = false,
  ): LevelSnapshot {
    const current = this.snapshot;
    const snapshot =
      current && sameRefs(current.refs, refs) && current.prepared?.size === prepared?.size
        ? current
        : this.snapshotOf(refs, prepared, decoded);
    this.snapshot = snapshot;
    this.token = token;
    const listing = snapshot.cascadeLayer.listing!;
    for (const path of [...this.bodies.keys()]) if (!listing.has(path)) this.bodies.delete(path);
    return snapshot;
  }

  private snapshotOf(
    refs: readonly DocumentRef[],
    prepared: ReadonlyMap<string, PreparedDocument> | undefined,
    decoded: boolean,
  ): LevelSnapshot {
    const frozen = decoded ? refs : Object.freeze(refs.map((ref) => Object.freeze({ path: ref.path, etag: ref.etag, size: ref.size })));
    const listing = new Map<string, DocumentRef>();
    for (let i = 0; i < frozen.length; i++) listing.set(frozen[i]!.path, frozen[i]!);
    const layer: DocumentLayer = {
      read: (path) => this.read(path, listing),
      list: async (prefix) => {
        validateDocumentPrefix(prefix);
        if (!prefix.startsWith(CATALOGUE_PREFIX)) return this.raw.list(prefix);
        return frozen.filter((ref) => ref.path.startsWith(prefix));
      },
    };
    return { refs: frozen, prepared, cascadeLayer: { ...this.level, layer, listing, prepared } };
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
