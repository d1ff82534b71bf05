/** API.md: `Prefer: wait=N` waits at most 20 seconds for the lane, whatever N says. */
const MAX_PREFER_WAIT_SECONDS = 20;

const WAIT = /^wait\s*=\s*(?:"(\d{1,32})"|(\d{1,32}))$/i;

/**
 * Seconds to wait from a `Prefer` header value (RFC 7240), clamped to MAX_PREFER_WAIT_SECONDS;
 * undefined when there is no usable `wait`. Per RFC 7240 §2 a preference the server does not
 * understand is ignored rather than rejected, so a malformed `wait` means "don't wait".
 */
export function parsePreferWait(headerValue: string | undefined): number | undefined {
  if (headerValue === undefined) return undefined;
  for (const preference of headerValue.split(",")) {
    const [token = ""] = preference.split(";");
    const match = WAIT.exec(token.trim());
    if (!match) continue;
    const seconds = Number.parseInt(match[1] ?? match[2] ?? "", 10);
    if (Number.isNaN(seconds)) continue;
    return Math.min(seconds, MAX_PREFER_WAIT_SECONDS);
  }
  return undefined;
}
