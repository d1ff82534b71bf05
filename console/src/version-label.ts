import type { DocumentVersion } from "skills-service/client";

/** S3 version ids are ~32 characters; the first 8 tell a document's versions apart in a list. */
export const SHORT_VERSION_CHARS = 8;

export const shortVersionId = (versionId: string): string => (versionId.length > SHORT_VERSION_CHARS + 1 ? `${versionId.slice(0, SHORT_VERSION_CHARS)}…` : versionId);

/**
 * Who wrote a version, where the service knows it. Read loosely: older stacks send nothing, and
 * the field may be a login or an object naming one.
 */
export function writtenByOf(version: DocumentVersion): string | undefined {
  const value: unknown = (version as DocumentVersion & { writtenBy?: unknown }).writtenBy;
  if (typeof value === "string") return value === "" ? undefined : value;
  if (value === null || typeof value !== "object") return undefined;
  const record = value as Record<string, unknown>;
  for (const key of ["login", "user", "sub", "name"]) {
    const field = record[key];
    if (typeof field === "string" && field !== "") return field;
  }
  return undefined;
}

/** A size as a reader wants it: bytes below 10 KiB, else KiB with one decimal. */
export const formatSize = (bytes: number): string => (bytes < 10 * 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`);
