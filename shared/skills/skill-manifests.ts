import { LRUCache } from "lru-cache";
import type { DocumentDigests, StoredDigest } from "../documents/document-digests.js";
import { mapWithConcurrency } from "../documents/cascade-layers.js";
import { bareEtag } from "../documents/document-body.js";
import { documentDigest } from "./document-digest.js";
import type { ListedSkill } from "./resolved-skill.js";
import type { SkillLoader } from "./skill-loader.js";
import type { SkillFrontmatterObject } from "./skill-md-rendition.js";
import { AGENT_SKILLS_NAME } from "./skill-name.js";
import { SKILL_DOCUMENT_NAME } from "./skill-paths.js";
import type { SkillScopeContext } from "../documents/cascade-scope.js";

/** The MCP Skills extension's per-skill limits (SEP-2640 "Limits"): a server SHOULD NOT serve a skill beyond them. */
export const MAX_SKILL_RESOURCES = 512;
export const MAX_SKILL_TOTAL_BYTES = 16 * 1024 * 1024;

/** Files hashed at once when stored digests are missing or stale. */
const READ_CONCURRENCY = 8;

/** Digests taken from bytes, per tenant/level/path/ETag: a level without entries is hashed once per container. */
const MEMO_ENTRIES = 20_000;

export interface ManifestFile {
  /** Relative to the skill folder; SKILL.md first. */
  path: string;
  /** Bytes served: for SKILL.md, its rendition's (skill-md-rendition.ts). */
  size: number;
  /** 64 lower-case hex characters. */
  sha256: string;
}

export interface SkillManifest {
  frontmatter: SkillFrontmatterObject;
  files: ManifestFile[];
}

export type ManifestOutcome = { manifest: SkillManifest } | { refusal: string };

const tooLarge = (bytes: number): string =>
  `the skill's files hold ${bytes} bytes or more; the Skills extension serves at most ${MAX_SKILL_TOTAL_BYTES} per skill`;

interface Hashed {
  digest: StoredDigest;
  size: number;
}

/**
 * A skill's complete file manifest with SHA-256 digests (issue 32), for the MCP Skills extension
 * and the skill detail's `files[].digest`. Digests come from what the documents API stored with
 * each write (DocumentDigests), valid while the listing's ETag is the one they were taken of; a
 * missing or stale one is taken from the bytes once, read from the skill's own layer as
 * resources/read reads them, and stored. So a listing reads no file that was written through the
 * API and has not changed since. The bundled level has no table entries: its digests are kept in
 * memory, as are those of a level no write through the API ever counted.
 */
export class SkillManifests {
  // maxSize, not `max`: lru-cache would allocate arrays for all MEMO_ENTRIES up front (~3 ms per instance).
  private readonly memo = new LRUCache<string, Hashed>({ maxSize: MEMO_ENTRIES, sizeCalculation: () => 1 });

  constructor(private readonly deps: { loader: Pick<SkillLoader, "readSkillFileDocument">; digests?: DocumentDigests | undefined }) {}

  /** The manifest of a visible skill, or why the extension cannot serve it (the caller reports it as skipped). */
  async manifest(scope: SkillScopeContext, skill: ListedSkill): Promise<ManifestOutcome> {
    if (!AGENT_SKILLS_NAME.test(skill.name))
      return {
        refusal: `the folder name '${skill.name}' is not an Agent Skills name (lower-case letters, digits and single hyphens, at most 64)`,
      };
    const files = skill.files ?? [];
    if (files.length + 1 > MAX_SKILL_RESOURCES)
      return {
        refusal: `the skill has ${files.length + 1} files or more; the Skills extension serves at most ${MAX_SKILL_RESOURCES} per skill`,
      };
    // From the listing first, so an oversized skill costs no read; checked again with the sizes served.
    const listedBytes = files.reduce((sum, file) => sum + file.size, 0);
    if (listedBytes > MAX_SKILL_TOTAL_BYTES) return { refusal: tooLarge(listedBytes) };
    const stored = await this.stored(scope, skill);
    const skillMd = await this.hashed(scope, skill, stored, SKILL_DOCUMENT_NAME, skill.location.etag, undefined);
    if (skillMd === undefined) return { refusal: "SKILL.md is no longer there" };
    const rendition = skillMd.digest.rendition;
    if (rendition === undefined) return { refusal: "SKILL.md has no rendition" };
    if ("refusal" in rendition) return { refusal: rendition.refusal };
    const hashed = await mapWithConcurrency(files, READ_CONCURRENCY, (file) =>
      this.hashed(scope, skill, stored, file.path, file.etag, file.size),
    );
    const gone = files.find((_, i) => hashed[i] === undefined);
    if (gone !== undefined) return { refusal: `the file '${gone.path}' is no longer there` };
    const manifestFiles: ManifestFile[] = [
      { path: SKILL_DOCUMENT_NAME, size: rendition.size, sha256: rendition.sha256 },
      ...files.map((file, i) => ({ path: file.path, size: hashed[i]!.size, sha256: hashed[i]!.digest.sha256 })),
    ];
    const total = manifestFiles.reduce((sum, file) => sum + file.size, 0);
    if (total > MAX_SKILL_TOTAL_BYTES) return { refusal: tooLarge(total) };
    return { manifest: { frontmatter: JSON.parse(rendition.frontmatter) as SkillFrontmatterObject, files: manifestFiles } };
  }

  /** The SHA-256 of each listed file of the skill as stored (SKILL.md excluded, as in the skill detail), by path; a file gone meanwhile has none. */
  async fileDigests(scope: SkillScopeContext, skill: ListedSkill): Promise<ReadonlyMap<string, string>> {
    const files = skill.files ?? [];
    if (files.length === 0) return new Map();
    const stored = await this.stored(scope, skill);
    const hashed = await mapWithConcurrency(files, READ_CONCURRENCY, (file) =>
      this.hashed(scope, skill, stored, file.path, file.etag, file.size),
    );
    return new Map(files.flatMap((file, i) => (hashed[i] ? [[file.path, hashed[i].digest.sha256] as const] : [])));
  }

  private async stored(scope: SkillScopeContext, skill: ListedSkill): Promise<ReadonlyMap<string, StoredDigest>> {
    const { digests } = this.deps;
    if (digests === undefined || skill.source === "RESOURCE") return new Map();
    return digests.under(scope.tenantId, skill.location.project, `${skill.location.directory}/`);
  }

  /** A file's digest: stored for this ETag, else remembered, else taken from the bytes (and stored). */
  private async hashed(
    scope: SkillScopeContext,
    skill: ListedSkill,
    stored: ReadonlyMap<string, StoredDigest>,
    path: string,
    etag: string | undefined,
    listedSize: number | undefined,
  ): Promise<Hashed | undefined> {
    const { project, directory } = skill.location;
    const documentPath = `${directory}/${path}`;
    const known = stored.get(documentPath);
    const current = etag === undefined ? undefined : bareEtag(etag);
    // SKILL.md's size is its rendition's (in the digest), so it has no listed size here.
    if (known !== undefined && current !== undefined && bareEtag(known.etag) === current) return { digest: known, size: listedSize ?? 0 };
    const key = (tag: string): string => JSON.stringify([scope.tenantId, project, documentPath, tag]);
    const remembered = current === undefined ? undefined : this.memo.get(key(current));
    if (remembered !== undefined) return remembered;
    const doc = await this.deps.loader.readSkillFileDocument(scope, skill, path);
    if (doc === undefined) return undefined;
    const read: Hashed = { digest: documentDigest(documentPath, bareEtag(doc.etag), doc.body), size: doc.body.byteLength };
    this.memo.set(key(read.digest.etag), read);
    if (this.deps.digests !== undefined && skill.source !== "RESOURCE")
      await this.deps.digests.remember(scope.tenantId, project, documentPath, read.digest);
    return read;
  }
}
