import { createHash } from "node:crypto";

/** Bodies are bytes everywhere below the API; strings are UTF-8 encoded once, here. */
export const toBytes = (body: Uint8Array | string): Uint8Array =>
  typeof body === "string" ? new TextEncoder().encode(body) : body;

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
