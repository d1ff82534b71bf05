import { createHash } from "node:crypto";
import { InvalidDocument } from "../errors.js";

/** Bodies are bytes everywhere below the API; strings are UTF-8 encoded once, here. */
export const toBytes = (body: Uint8Array | string): Uint8Array => (typeof body === "string" ? new TextEncoder().encode(body) : body);

/** The ETag S3 gives a single-part upload: hex MD5 of the bytes, without quotes. */
export const md5Etag = (bytes: Uint8Array): string => createHash("md5").update(bytes).digest("hex");

/** S3 returns ETags quoted (and possibly weak, `W/"…"`); every adapter hands them out bare. */
export const bareEtag = (etag: string | undefined): string => (etag ?? "").replace(/^W\//, "").replaceAll('"', "");

/**
 * Strict UTF-8 decoding: invalid byte sequences (and NUL, which only binary files contain)
 * yield undefined instead of U+FFFD, so a binary upload is reported, not half-parsed.
 */
export function strictUtf8(bytes: Uint8Array): string | undefined {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  return text.includes("\u0000") ? undefined : text;
}

/** The text of a document that must be text (a SKILL.md, recipe, evals file); 422 with that reason otherwise. */
export function textOrInvalid(path: string, body: Uint8Array): string {
  const text = strictUtf8(body);
  if (text === undefined)
    throw new InvalidDocument(path, [{ path, message: "is not UTF-8 text (invalid byte sequence or binary content)", severity: "error" }]);
  return text;
}
