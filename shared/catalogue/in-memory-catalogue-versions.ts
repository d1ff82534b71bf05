import { validateProjectName, validateTenantId } from "../documents/document-path.js";
import { UNVERSIONED, type CatalogueVersions, type LevelVersion, type SnapshotMove, type SnapshotPointer } from "./catalogue-versions.js";

/** CatalogueVersions in process memory: unit tests, and the local stack without DynamoDB. */
export class InMemoryCatalogueVersions implements CatalogueVersions {
  private readonly levels = new Map<string, LevelVersion>();

  constructor(private readonly clock: () => Date = () => new Date()) {}

  async bump(tenant: string, project: string): Promise<LevelVersion> {
    const key = levelKey(tenant, project);
    const current = this.levels.get(key);
    const next: LevelVersion = { version: (current?.version ?? 0) + 1, changedAt: this.clock().toISOString() };
    if (current?.snapshot) next.snapshot = current.snapshot;
    this.levels.set(key, next);
    return { ...next };
  }

  async pointSnapshot(tenant: string, project: string, pointer: SnapshotPointer, replacing?: string): Promise<SnapshotMove> {
    const key = levelKey(tenant, project);
    const current = this.levels.get(key) ?? UNVERSIONED;
    const at = current.snapshot;
    if (at && at.version >= pointer.version && at.key !== replacing) return { moved: false };
    this.levels.set(key, { ...current, snapshot: { ...pointer } });
    return { moved: true, replaced: at?.key };
  }

  async read(tenant: string, projects: readonly string[]): Promise<Map<string, LevelVersion>> {
    return new Map(projects.map((project) => [project, { ...(this.levels.get(levelKey(tenant, project)) ?? UNVERSIONED) }]));
  }
}

const levelKey = (tenant: string, project: string): string => JSON.stringify([validateTenantId(tenant), validateProjectName(project)]);
