// Lives with the requests (processes/) rather than turns/ since issue 29: a turn id is derived from
// a lane request's id, and the lane payloads below turns/ check its length.
/**
 * A turn's id names the lane request that composed it, so the composed Turn can be read back
 * from that request's record (GET …/turns/{turnId}) without storing anything more on the turn's
 * path: an id made of URL-safe characters is used as it is (the service's own ids, UUIDs), any
 * other requestId is base64url-encoded behind a `~` (a character no id used as it is contains).
 * The same requestId always gives the same turnId, so a repeated compose answers the turnId of
 * the turn it actually produced.
 */
const PLAIN_ID = /^[A-Za-z0-9_-]{1,256}$/;
const ENCODED_PREFIX = "~";

/** The id of the turn that the compose request `requestId` produces. */
export function turnIdFor(requestId: string): string {
  return PLAIN_ID.test(requestId) ? requestId : ENCODED_PREFIX + Buffer.from(requestId, "utf8").toString("base64url");
}

/** The requestId of the compose that produced `turnId`, or undefined for an id turnIdFor never returns. */
export function composeRequestIdOf(turnId: string): string | undefined {
  if (PLAIN_ID.test(turnId)) return turnId;
  if (!turnId.startsWith(ENCODED_PREFIX)) return undefined;
  const encoded = turnId.slice(ENCODED_PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(encoded)) return undefined;
  const requestId = Buffer.from(encoded, "base64url").toString("utf8");
  // Only the canonical encoding of an id that needed one: anything else names no turn.
  return turnIdFor(requestId) === turnId ? requestId : undefined;
}

/** Longest turnId: a 256-character requestId of 3-byte characters, encoded. */
export const MAX_TURN_ID_LENGTH = 1 + Math.ceil((256 * 3 * 4) / 3);
