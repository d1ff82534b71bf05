import { Forbidden } from "../../shared/auth/auth-errors.js";

/** `host[:port]` in lower case, without the scheme's default port. */
function normalizedHost(host: string, protocol: string): string {
  const lower = host.toLowerCase();
  const defaultPort = protocol === "http:" ? ":80" : ":443";
  return lower.endsWith(defaultPort) ? lower.slice(0, -defaultPort.length) : lower;
}

/**
 * The MCP Streamable HTTP transport requires servers to validate `Origin` (DNS rebinding: a page
 * of another site reaching a server through the browser). A request without `Origin` is not a
 * browser's cross-site request (CLI and SDK clients send none) and passes; one whose `Origin` is
 * this very host (a page the service itself served) passes; any other `Origin`, `null` and a
 * malformed one included, is 403 before any MCP message is read.
 */
export function assertMcpOrigin(headers: Readonly<Record<string, string | undefined>> | null | undefined): void {
  const entries = Object.entries(headers ?? {});
  const header = (name: string): string | undefined => entries.find(([key]) => key.toLowerCase() === name)?.[1];
  const origin = header("origin");
  if (origin === undefined) return;
  const host = header("host");
  let parsed: URL | undefined;
  try {
    parsed = new URL(origin);
  } catch {
    parsed = undefined;
  }
  const sameHost =
    parsed !== undefined &&
    (parsed.protocol === "https:" || parsed.protocol === "http:") &&
    host !== undefined &&
    normalizedHost(parsed.host, parsed.protocol) === normalizedHost(host, parsed.protocol);
  if (!sameHost)
    throw new Forbidden(
      `Origin ${JSON.stringify(origin.slice(0, 200))} may not use this MCP server (only requests without Origin or from this host)`,
    );
}
