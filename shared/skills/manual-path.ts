import { validateDocumentPath } from "../documents/document-path.js";

/**
 * Paths a SKILL.md names: `manualPaths` (folders relative to the document root, sanitized like
 * `manual_read`, spec §2) and sibling files (`referenceDocs[].file`, `scripts[].file`, relative to
 * the skill directory). Both end up in S3 keys, so after the spec's own rules each must also be a
 * valid document path (SECURITY.md "Paths and S3 keys"): anything doubtful is refused, not repaired.
 */

type PathCheck = { ok: true; path: string } | { ok: false; message: string };

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function checkSegments(path: string, outside: string): PathCheck {
  const segments = path.split("/");
  if (segments.includes("..")) return { ok: false, message: `must not contain '..' (${outside})` };
  if (segments.includes("")) return { ok: false, message: "must not contain empty segments ('//')" };
  if (segments.includes(".")) return { ok: false, message: "must not contain '.' segments" };
  try {
    validateDocumentPath(path);
  } catch (error) {
    return { ok: false, message: `is not a valid document path: ${(error as Error).message}` };
  }
  return { ok: true, path };
}

/** Backslashes become `/`, leading and trailing `/` are dropped; `..` and the like are errors. */
export function sanitizeManualPath(raw: string): PathCheck {
  if (CONTROL.test(raw)) return { ok: false, message: "must not contain control characters" };
  const path = raw.replaceAll("\\", "/").replace(/^\/+/, "").replace(/\/+$/, "");
  if (path === "") return { ok: false, message: "must name a folder below the document root" };
  return checkSegments(path, "it would leave the document root");
}

/** A sibling file of the skill: relative, inside the skill directory, written with `/`. */
export function checkSkillFilePath(raw: string): PathCheck {
  if (CONTROL.test(raw)) return { ok: false, message: "must not contain control characters" };
  if (raw.startsWith("/") || raw.startsWith("\\") || /^[A-Za-z]:/.test(raw)) {
    return { ok: false, message: "must be relative to the skill directory (no leading '/' or drive)" };
  }
  if (raw.includes("\\")) return { ok: false, message: "must use '/' as separator (no backslashes)" };
  return checkSegments(raw, "it would leave the skill directory");
}
