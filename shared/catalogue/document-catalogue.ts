import { LRUCache } from "lru-cache";
import type { CascadeCatalogue, CascadeLevel, CascadeView, DocumentPreparer, StaleLevel } from "../documents/cascade-layers.js";
import type { LevelSnapshotStore } from "./level-snapshot-store.js";
import { cascadeLevels } from "../documents/cascade-layers.js";
import { messageOf } from "../documents/cascade-resolver.js";
import type { DocumentStore } from "../documents/document-store.js";
import { StoreDocumentLayer } from "../documents/store-document-layer.js";
import type { SkillScopeContext } from "../documents/cascade-scope.js";
import { CatalogueUnavailable } from "./catalogue-errors.js";
import { bundledLevelOutcomes, type BundledLayer } from "./bundled-level-outcomes.js";
import { CatalogueLevel, type LevelSnapshot } from "./catalogue-level.js";
import { versionToken, type CatalogueVersions, type LevelVersion } from "./catalogue-versions.js";
import { VersionReadBatch } from "./version-read-batch.js";
import { primedVersionsOf } from "./primed-versions.js";
import type { Logger } from "../support/logger.js";

export interface DocumentCatalogueOptions {
  store: DocumentStore;
  /**
   * The RESOURCE layer: listed once per tenant entry, never validated (a change needs a restart,
   * spec §3); its parse outcomes are prepared once per process (bundledLevelOutcomes).
   */
  bundled: BundledLayer;
  versions: CatalogueVersions;
  logger?: Pick<Logger, "warn">;
  /** Levels (tenant × project) kept; the least recently used one is dropped beyond it. */
  maxLevels?: number;
  /** Parses the documents a level snapshot keeps (skills: `skillDocumentPreparer`); without it every scan reads the documents. */
  preparer?: DocumentPreparer;
  /** Where level snapshots are stored (issue 27); without it (or without a preparer) none is read or written. */
  snapshots?: LevelSnapshotStore;
  /** False: snapshots are only read (the function may not write them or move the pointer). @default true */
  snapshotWrites?: boolean;
}

const RESOURCE_TOKEN = "resource";
const DEFAULT_MAX_LEVELS = 1024;

/**
 * The warm catalogue of one instance (a Lambda container): per cascade level, the listing of its
 * `_vance/` documents and their bodies by ETag (see CatalogueLevel). Every lookup validates all
 * store levels of its scope with ONE versions read (coalesced with the other lookups of the same
 * moment, see VersionReadBatch); an unchanged level is served from memory, a changed one is listed
 * again and only documents whose ETag changed are read again. So an edit is visible on the very
 * next lookup (spec §3 "Hot Reload") without listing or reading S3 on every turn.
 *
 * Entries are keyed by tenant (SECURITY.md): nothing one tenant's lookups cached is ever handed
 * to another tenant, the bundled layer included. What every tenant's RESOURCE level shares is the
 * parse outcomes of the bundled bytes themselves, which no lookup adds to (bundledLevelOutcomes).
 *
 * A turn reads the versions together with its process (ProcessVersionsReader); the scopes of its
 * lookups carry them (primed-versions.ts), so they read no versions of their own: a steady turn
 * costs that one read. A lookup sees every bump that completed before the caller's read.
 *
 * Faults: versions unavailable → every level is listed (fresh, uncached validation). A level that
 * cannot be listed is served from its last snapshot with a warning (StaleLevel), or, with none,
 * the lookup fails with CatalogueUnavailable (retryable).
 */
export class DocumentCatalogue implements CascadeCatalogue {
  private readonly store: DocumentStore;
  private readonly bundled: BundledLayer;
  private readonly logger: Pick<Logger, "warn">;
  private readonly batch: VersionReadBatch;
  private readonly levels: LRUCache<string, CatalogueLevel>;
  private readonly versions: CatalogueVersions;
  private readonly preparer: DocumentPreparer | undefined;
  private readonly snapshots: LevelSnapshotStore | undefined;
  private readonly snapshotWrites: boolean;

  constructor(options: DocumentCatalogueOptions) {
    this.store = options.store;
    this.bundled = options.bundled;
    this.logger = options.logger ?? console;
    this.batch = new VersionReadBatch(options.versions);
    this.versions = options.versions;
    this.preparer = options.preparer;
    this.snapshots = options.snapshots;
    this.snapshotWrites = options.snapshotWrites !== false;
    this.levels = new LRUCache({ max: options.maxLevels ?? DEFAULT_MAX_LEVELS });
  }

  /** Throws InvalidRequest for a malformed scope, CatalogueUnavailable when a level is unknown and unlistable. */
  async view(scope: SkillScopeContext): Promise<CascadeView> {
    const levels = cascadeLevels(scope);
    const tenant = scope.tenantId;
    const tokens = await this.tokensOf(
      tenant,
      levels.filter((l) => l.source !== "RESOURCE").map((l) => l.project),
      primedVersionsOf(scope),
    );
    const served = await Promise.all(
      levels.map((level) => {
        const version = level.source === "RESOURCE" ? undefined : tokens.get(level.project);
        return this.serve(tenant, level, level.source === "RESOURCE" ? RESOURCE_TOKEN : version && versionToken(version), version);
      }),
    );
    return {
      layers: served.map((s) => s.snapshot.cascadeLayer),
      snapshots: served.map((s) => s.snapshot),
      stale: served.flatMap((s) => (s.stale ? [s.stale] : [])),
    };
  }

  /** A level without a token has an unknown version: it is listed afresh. */
  private async tokensOf(
    tenant: string,
    projects: string[],
    known?: ReadonlyMap<string, LevelVersion>,
  ): Promise<Map<string, LevelVersion>> {
    const tokens = new Map<string, LevelVersion>();
    const missing: string[] = [];
    for (const project of projects) {
      const version = known?.get(project);
      if (version) tokens.set(project, version);
      else missing.push(project);
    }
    if (missing.length === 0) return tokens;
    try {
      const versions = await this.batch.read(tenant, missing);
      for (const [project, version] of versions) tokens.set(project, version);
    } catch (error) {
      this.logger.warn("Catalogue versions unavailable: listing the unvalidated levels of the scope", { tenant, error: messageOf(error) });
    }
    return tokens;
  }

  /** `token` undefined: the version is unknown, so only a fresh listing will do. */
  private async serve(
    tenant: string,
    level: CascadeLevel,
    token: string | undefined,
    version?: LevelVersion,
  ): Promise<{ snapshot: LevelSnapshot; stale?: StaleLevel }> {
    const entry = this.entryFor(tenant, level);
    if (token !== undefined && entry.snapshot && entry.token === token) return { snapshot: entry.snapshot };
    try {
      return { snapshot: await entry.refresh(token, version) };
    } catch (error) {
      const previous = entry.snapshot;
      if (!previous) throw new CatalogueUnavailable(tenant, level.project, { cause: error });
      this.logger.warn("Catalogue serves a stale level: it could not be listed", {
        tenant,
        project: level.project,
        error: messageOf(error),
      });
      return { snapshot: previous, stale: { source: level.source, project: level.project, reason: messageOf(error) } };
    }
  }

  private entryFor(tenant: string, level: CascadeLevel): CatalogueLevel {
    // The RESOURCE label `bundled` is also a valid project id: the source keeps the two apart.
    const key = JSON.stringify([tenant, level.source === "RESOURCE" ? "RESOURCE" : "STORE", level.project]);
    let entry = this.levels.get(key);
    if (!entry) {
      const raw = level.source === "RESOURCE" ? this.bundled : new StoreDocumentLayer(this.store, tenant, level.project);
      const snapshots =
        level.source !== "RESOURCE" && this.snapshots
          ? { tenant, store: this.snapshots, versions: this.versions, writes: this.snapshotWrites }
          : undefined;
      const preparer = this.preparer;
      const seed = level.source === "RESOURCE" && preparer ? () => bundledLevelOutcomes(this.bundled, preparer, this.logger) : undefined;
      entry = new CatalogueLevel(level, raw, this.logger, preparer, snapshots, seed);
      this.levels.set(key, entry);
    }
    return entry;
  }
}
