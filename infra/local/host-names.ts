import { networkInterfaces } from "node:os";

/**
 * The host names the local stack answers (DNS rebinding, issue 28): a page of another site whose
 * name an attacker points at 127.0.0.1 sends its own name in `Host`, and would otherwise read the
 * dev token from `/console/config.json` or call the API with it. Only the loopback names and the
 * `--host` given are served; a wildcard `--host` (0.0.0.0, ::) adds this machine's own addresses,
 * since an IP address cannot be rebound.
 */
export function servedHostNames(listenHost: string): ReadonlySet<string> {
  const names = new Set(["127.0.0.1", "localhost", "::1", bare(listenHost)]);
  if (listenHost === "0.0.0.0" || listenHost === "::") {
    for (const addresses of Object.values(networkInterfaces())) for (const address of addresses ?? []) names.add(bare(address.address));
  }
  return names;
}

/** `[::1]` → `::1`; names compare in lower case. */
function bare(host: string): string {
  const lower = host.toLowerCase();
  return lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower;
}

/** The name in a `Host` header (`name`, `name:port`, `[v6]`, `[v6]:port`), or undefined when it has none. */
export function hostNameOf(header: string | undefined): string | undefined {
  if (header === undefined || header === "") return undefined;
  const lower = header.toLowerCase();
  if (lower.startsWith("[")) {
    const close = lower.indexOf("]");
    if (close === -1) return undefined;
    const rest = lower.slice(close + 1);
    if (rest !== "" && !/^:\d{1,5}$/.test(rest)) return undefined;
    return lower.slice(1, close);
  }
  const match = /^([^:]+)(?::\d{1,5})?$/.exec(lower);
  return match?.[1];
}

/** Whether a request with this `Host` header is for this stack. */
export const isServedHost = (served: ReadonlySet<string>, header: string | undefined): boolean => {
  const name = hostNameOf(header);
  return name !== undefined && served.has(name);
};
