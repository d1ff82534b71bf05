import type { CascadeLevel, DocumentPreparer } from "../documents/cascade-layers.js";
import type { DocumentStore } from "../documents/document-store.js";
import { StoreDocumentLayer } from "../documents/store-document-layer.js";
import { TENANT_PROJECT, userProject } from "../documents/cascade-scope.js";
import type { Logger } from "../support/logger.js";
import { CatalogueLevel } from "./catalogue-level.js";
import { versionToken, type CatalogueVersions, type LevelVersion } from "./catalogue-versions.js";
import type { LevelSnapshotStore } from "./level-snapshot-store.js";

export interface LevelSnapshotRebuildDeps {
  store: DocumentStore;
  snapshots: LevelSnapshotStore;
  versions: CatalogueVersions;
  preparer: DocumentPreparer;
  logger: Pick<Logger, "warn">;
}

const levelOf = (project: string): CascadeLevel => ({
  source: project === TENANT_PROJECT ? "VANCE" : project.startsWith(userProject("")) ? "USER" : "PROJECT",
  project,
});

/**
 * Writes the level's snapshot at `version` (the one a bump just returned, pointer included), as a
 * cold instance would: the level is listed, every SKILL.md whose ETag the previous snapshot knows
 * keeps its outcome, only the changed ones are read and parsed, and the pointer moves only
 * forward (CatalogueLevel, `pointSnapshot`): a stale rebuild never replaces a newer one.
 *
 * The listing, not the event's keys alone, is what the diff runs against: a write whose event was
 * lost has no bump of its own, so only a listing finds it, and the next bump heals it. Listing
 * costs one request per 1 000 keys; reading and parsing is what grows with the level, and that is
 * limited to the documents whose ETag changed. A failure is the caller's to log: the next cold
 * start lists the level instead.
 */
export async function rebuildLevelSnapshot(
  deps: LevelSnapshotRebuildDeps,
  tenant: string,
  project: string,
  version: LevelVersion,
): Promise<void> {
  const level = new CatalogueLevel(levelOf(project), new StoreDocumentLayer(deps.store, tenant, project), deps.logger, deps.preparer, {
    tenant,
    store: deps.snapshots,
    versions: deps.versions,
  });
  await level.refresh(versionToken(version), version);
}
