import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";

/** MD5 hex of a file, streamed: the ETag S3 gives a single-part upload of the same bytes. */
export async function fileEtag(path: string): Promise<string> {
  const hash = createHash("md5");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
