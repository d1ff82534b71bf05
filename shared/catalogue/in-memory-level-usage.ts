import { countsOf, usageDelta, type LevelCounts, type LevelUsage, type LevelUsageRead, type PathUsage } from "./level-usage.js";

/** LevelUsage in process memory: unit tests of the documents API's counting rules. */
export class InMemoryLevelUsage implements LevelUsage {
  private readonly counts = new Map<string, LevelCounts>();
  private readonly entries = new Map<string, PathUsage>();
  private readonly names = new Map<string, string>();

  async read(tenant: string, project: string, path: string): Promise<LevelUsageRead | undefined> {
    const counts = this.counts.get(key(tenant, project));
    if (!counts) return undefined;
    const entry = this.entries.get(key(tenant, project, "P", path));
    return { counts: { ...counts }, entry: entry && { ...entry } };
  }

  async seed(tenant: string, project: string, entries: ReadonlyMap<string, PathUsage>, names: readonly string[]): Promise<void> {
    if (this.counts.has(key(tenant, project))) return;
    for (const [path, entry] of entries) this.entries.set(key(tenant, project, "P", path), { ...entry });
    for (const name of names) this.names.set(key(tenant, project, "N", name.toLowerCase()), name);
    this.counts.set(key(tenant, project), countsOf(entries.values()));
  }

  async record(tenant: string, project: string, path: string, entry: PathUsage | undefined): Promise<void> {
    const counts = this.counts.get(key(tenant, project));
    if (!counts) return;
    const k = key(tenant, project, "P", path);
    const delta = usageDelta(this.entries.get(k), entry);
    if (entry) this.entries.set(k, { ...entry });
    else this.entries.delete(k);
    counts.documents += delta.documents;
    counts.bytes += delta.bytes;
    counts.patterns += delta.patterns;
  }

  async claimName(tenant: string, project: string, folded: string, name: string): Promise<string | undefined> {
    const holder = this.names.get(key(tenant, project, "N", folded));
    if (holder !== undefined && holder !== name) return holder;
    this.names.set(key(tenant, project, "N", folded), name);
    return undefined;
  }

  async forceName(tenant: string, project: string, folded: string, name: string): Promise<void> {
    this.names.set(key(tenant, project, "N", folded), name);
  }

  async releaseName(tenant: string, project: string, folded: string, name: string): Promise<void> {
    if (this.names.get(key(tenant, project, "N", folded)) === name) this.names.delete(key(tenant, project, "N", folded));
  }
}

const key = (...parts: string[]): string => JSON.stringify(parts);
