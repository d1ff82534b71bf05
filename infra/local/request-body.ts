import type { IncomingMessage } from "node:http";

/** API Gateway HTTP API's payload limit. */
export const MAX_REQUEST_BODY_BYTES = 10 * 1024 * 1024;

export class RequestBodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`Request body is larger than ${limit} bytes`);
  }
}

/**
 * The whole body, refused as soon as it passes `limit` (by Content-Length up front, or while
 * streaming) so an oversized upload is never buffered.
 */
export async function readRequestBody(req: IncomingMessage, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) throw new RequestBodyTooLarge(limit);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    total += buffer.length;
    if (total > limit) throw new RequestBodyTooLarge(limit);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, total);
}
