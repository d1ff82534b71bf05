import { createHash } from "node:crypto";
import type { StoredDigest } from "../documents/document-digests.js";
import { skillDirectoryNameOf } from "./skill-paths.js";
import { skillMdRendition } from "./skill-md-rendition.js";

export const sha256Hex = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** `sha256:<hex>`: the form of the MCP Skills extension, the skill detail's `files[].digest` and `skills pull`. */
export const digestLabel = (sha256: string): string => `sha256:${sha256}`;

/**
 * What is stored of a document's bytes: its SHA-256 and, for a skill's SKILL.md, what MCP serves
 * for it (skill-md-rendition.ts), so a listing of manifests reads no file whose ETag is unchanged.
 */
export function documentDigest(path: string, etag: string, body: Uint8Array): StoredDigest {
  const name = skillDirectoryNameOf(path);
  if (name === undefined) return { etag, sha256: sha256Hex(body) };
  const rendition = skillMdRendition(name, body);
  return {
    etag,
    sha256: sha256Hex(body),
    rendition:
      "refusal" in rendition
        ? rendition
        : { sha256: sha256Hex(rendition.bytes), size: rendition.bytes.byteLength, frontmatter: JSON.stringify(rendition.frontmatter) },
  };
}
