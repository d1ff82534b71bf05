import { InvalidRequest } from "../errors.js";

/**
 * API.md: any path with a dot segment or a backslash, encoded or not, is 400 INVALID_REQUEST
 * whatever the route. URL layers disagree on how often they decode (`%252e%252e` is `..` after
 * two rounds) and on what counts as a separator (`\`, `%5c`, fullwidth `．．／` after NFKC), so the
 * path is checked at every decoding stage until nothing decodes any more.
 */
export const MAX_RAW_PATH_LENGTH = 2048;
/** Real clients encode once; more than a few rounds is an attack, not a path. */
const MAX_DECODE_ROUNDS = 4;

const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// `.`/`..` and any all-dots segment, also with a `;param` suffix (`..;/` walks up on some servers).
const DOT_SEGMENT = /^\.+(?:;.*)?$/;

function checkStage(stage: string): void {
  for (const form of new Set([stage, stage.normalize("NFKC")])) {
    if (form.includes("\\")) throw new InvalidRequest("Path must not contain a backslash (encoded or not)");
    if (CONTROL.test(form)) throw new InvalidRequest("Path must not contain control characters (encoded or not)");
    if (form.split("/").some((segment) => DOT_SEGMENT.test(segment))) {
      throw new InvalidRequest("Path must not contain '.' or '..' segments (encoded or not)");
    }
  }
}

/** Throws InvalidRequest unless `rawPath` (API Gateway v2 `rawPath`, still percent-encoded) is safe to route. */
export function assertSafeRawPath(rawPath: string): void {
  if (typeof rawPath !== "string" || !rawPath.startsWith("/")) throw new InvalidRequest("Path must start with '/'");
  if (rawPath.length > MAX_RAW_PATH_LENGTH) throw new InvalidRequest(`Path is longer than ${MAX_RAW_PATH_LENGTH} characters`);
  let stage = rawPath;
  for (let round = 0; ; round += 1) {
    checkStage(stage);
    if (!stage.includes("%")) return;
    // A `%` that starts no escape is malformed here, and a literal `%` is never a valid name character anyway.
    if (!PERCENT_ESCAPE.test(stage) || /%(?![0-9A-Fa-f]{2})/.test(stage)) throw new InvalidRequest("Path has malformed percent-encoding");
    if (round >= MAX_DECODE_ROUNDS) throw new InvalidRequest("Path is percent-encoded too many times");
    try {
      stage = decodeURIComponent(stage);
    } catch (error) {
      // Invalid or overlong UTF-8 such as `%c0%ae`.
      throw new InvalidRequest("Path has malformed percent-encoding", { cause: error });
    }
  }
}
