import type { DocumentVersion } from "../client/index.js";

/** Shown for a version whose writer the service does not know (written around the API). */
const UNKNOWN_WRITER = "-";

/** `skills history` lines: versionId, lastModified, size, etag, writer; ids padded so the columns line up. */
export function historyLines(versions: readonly DocumentVersion[]): string[] {
  const idWidth = Math.max(0, ...versions.map((v) => v.versionId.length));
  return versions.map(
    (v) => `${v.versionId.padEnd(idWidth)}  ${v.lastModified}  ${String(v.size).padStart(8)}  ${v.etag}  ${v.writtenBy ?? UNKNOWN_WRITER}`,
  );
}
