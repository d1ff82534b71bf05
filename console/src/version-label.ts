import type { DocumentVersion } from "skills-service/client";

/**
 * Characters of a version id shown in a list. The END is kept: S3's ids are random throughout,
 * while the local stack's start with a millisecond timestamp that versions saved close together share.
 */
export const SHORT_VERSION_CHARS = 8;

export const shortVersionId = (versionId: string): string =>
  versionId.length > SHORT_VERSION_CHARS + 1 ? `…${versionId.slice(-SHORT_VERSION_CHARS)}` : versionId;

/** Who wrote a version; versions written before the service kept writers have none. */
export const writtenByOf = (version: DocumentVersion): string | undefined =>
  version.writtenBy === undefined || version.writtenBy === "" ? undefined : version.writtenBy;

/** A size as a reader wants it: bytes below 10 KiB, else KiB with one decimal. */
export const formatSize = (bytes: number): string => (bytes < 10 * 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`);
