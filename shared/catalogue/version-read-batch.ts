import type { CatalogueVersions, LevelVersion } from "./catalogue-versions.js";

interface PendingRead {
  projects: Set<string>;
  promise: Promise<Map<string, LevelVersion>>;
}

/**
 * Coalesces the version reads a turn makes at once (its recipe and its skill listing, each active
 * skill's lookup) into one read per tenant. A read is sent in the microtask after the first
 * caller asked, so every caller that joins it asked BEFORE it was sent: each still sees every
 * bump that completed before it started, which is all "visible on the next turn" needs.
 */
export class VersionReadBatch {
  private readonly pending = new Map<string, PendingRead>();

  constructor(private readonly versions: CatalogueVersions) {}

  read(tenant: string, projects: readonly string[]): Promise<Map<string, LevelVersion>> {
    let batch = this.pending.get(tenant);
    if (!batch) {
      const set = new Set<string>();
      const promise = new Promise<Map<string, LevelVersion>>((resolve, reject) => {
        queueMicrotask(() => {
          this.pending.delete(tenant);
          try {
            this.versions.read(tenant, [...set]).then(resolve, reject);
          } catch (error) {
            reject(error);
          }
        });
      });
      batch = { projects: set, promise };
      this.pending.set(tenant, batch);
    }
    for (const project of projects) batch.projects.add(project);
    return batch.promise;
  }
}
