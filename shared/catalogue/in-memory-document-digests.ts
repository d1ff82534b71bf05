import type { DocumentDigests, StoredDigest } from "../documents/document-digests.js";

/** DocumentDigests in process memory: unit tests, and stacks without a table. */
export class InMemoryDocumentDigests implements DocumentDigests {
  private readonly digests = new Map<string, Map<string, StoredDigest>>();

  async under(tenant: string, project: string, prefix: string): Promise<ReadonlyMap<string, StoredDigest>> {
    const level = this.digests.get(JSON.stringify([tenant, project]));
    return new Map([...(level ?? [])].filter(([path]) => path.startsWith(prefix)));
  }

  async remember(tenant: string, project: string, path: string, digest: StoredDigest): Promise<void> {
    const key = JSON.stringify([tenant, project]);
    let level = this.digests.get(key);
    if (!level) this.digests.set(key, (level = new Map()));
    level.set(path, { ...digest });
  }
}
