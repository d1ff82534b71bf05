import type { ProcessStore } from "../processes/process-store.js";
import type { CatalogueVersions, LevelVersion } from "./catalogue-versions.js";
import type { ProcessVersionsReader, ProcessWithVersions } from "./process-versions-reader.js";

/**
 * ProcessVersionsReader over the two ports, read side by side: for in-memory stores (unit tests,
 * the local stack without DynamoDB), where a round trip costs nothing, and for any pair of stores
 * that cannot be read together.
 */
export class SeparateProcessVersionsReader implements ProcessVersionsReader {
  constructor(
    private readonly processes: Pick<ProcessStore, "get">,
    private readonly versions: CatalogueVersions,
  ) {}

  async read(tenant: string, processId: string, projects: readonly string[]): Promise<ProcessWithVersions> {
    const [process, versions] = await Promise.all([this.processes.get(tenant, processId), this.versionsOf(tenant, projects)]);
    return { process, versions };
  }

  /** A failed versions read leaves the levels out: the catalogue reads them again and handles the failure its way. */
  private async versionsOf(tenant: string, projects: readonly string[]): Promise<Map<string, LevelVersion>> {
    if (projects.length === 0) return new Map();
    try {
      return await this.versions.read(tenant, projects);
    } catch {
      return new Map();
    }
  }
}
