/**
 * Stored SHA-256 digests of documents (issue 32, the MCP Skills extension's manifests and the skill
 * detail's `files[].digest`). A digest belongs to the S3 ETag of the bytes it was taken of: one
 * whose ETag no longer matches the listing (a write around the API) is not used. The documents
 * API stores it with every write (on the level's per-document entry, level-usage.ts); a reader
 * that finds none, or a stale one, hashes the bytes once and stores it (`remember`).
 * Adapters: dynamodb-document-digests.ts (AWS), in-memory-document-digests.ts (tests, no table).
 */

/** What MCP serves for a SKILL.md (skill-md-rendition.ts): its digest and size, and its frontmatter as JSON. */
export interface StoredRendition {
  sha256: string;
  size: number;
  /** JSON of the rendition's frontmatter object. */
  frontmatter: string;
}

export interface StoredDigest {
  /** The S3 ETag (bare, no quotes) of the bytes hashed. */
  etag: string;
  /** 64 lower-case hex characters. */
  sha256: string;
  /** A SKILL.md's rendition, or why it has none (a folder name other hosts refuse, a `name:` that differs…). */
  rendition?: StoredRendition | { refusal: string } | undefined;
}

export interface DocumentDigests {
  /** Digests kept for the documents of a level whose path starts with `prefix` (one query), by path. */
  under(tenant: string, project: string, prefix: string): Promise<ReadonlyMap<string, StoredDigest>>;
  /** Keeps a digest taken from the bytes: only where the level keeps an entry for the path (a counted level). */
  remember(tenant: string, project: string, path: string, digest: StoredDigest): Promise<void>;
}
