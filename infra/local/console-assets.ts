import { existsSync, readFileSync, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { consoleContentSecurityPolicy } from "../console-csp.js";
import { CONSOLE_DIST } from "./console-build.js";

export const CONSOLE_PATH_PREFIX = "/console";

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".json": "application/json",
};

/**
 * What the console reads from `config.json`. The API is this same origin (whatever host name the
 * browser used), so only the dev token is said: it pre-fills the sign-in form.
 */
export interface LocalConsoleConfig {
  devToken: string;
}

const isConsolePath = (rawPath: string): boolean => rawPath === CONSOLE_PATH_PREFIX || rawPath.startsWith(`${CONSOLE_PATH_PREFIX}/`);

/**
 * The console's static assets at /console/, as CloudFront serves them when deployed (hashed
 * assets cached for good, index.html never), plus `config.json`, which only the local stack
 * answers with its dev token. Returns false for any other path.
 */
export function serveConsole(
  req: IncomingMessage,
  res: ServerResponse,
  rawPath: string,
  config: LocalConsoleConfig | undefined,
  dist: string = CONSOLE_DIST,
): boolean {
  if (!isConsolePath(rawPath)) return false;
  req.resume();
  if (req.method !== "GET" && req.method !== "HEAD")
    return answer(res, 405, "text/plain; charset=utf-8", "Method not allowed", { allow: "GET, HEAD" });
  if (rawPath === CONSOLE_PATH_PREFIX) return answer(res, 308, "text/plain; charset=utf-8", "", { location: `${CONSOLE_PATH_PREFIX}/` });
  const relative = rawPath.slice(CONSOLE_PATH_PREFIX.length + 1);
  if (relative === "config.json") {
    if (!config) return answer(res, 503, "text/plain; charset=utf-8", "The local stack is starting");
    return answer(res, 200, "application/json", JSON.stringify(config), { "cache-control": "no-store" });
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(relative === "" ? "index.html" : relative);
  } catch {
    return answer(res, 400, "text/plain; charset=utf-8", "Malformed path");
  }
  const file = normalize(join(dist, decoded));
  if (!file.startsWith(dist + sep) || decoded.includes("\\")) return answer(res, 400, "text/plain; charset=utf-8", "Bad path");
  if (!existsSync(join(dist, "index.html")))
    return answer(res, 503, "text/plain; charset=utf-8", "The console is not built: run `npm run build:console`");
  if (!existsSync(file) || !statSync(file).isFile()) return answer(res, 404, "text/plain; charset=utf-8", "Not found");
  const immutable = decoded.startsWith("assets/");
  const body = readFileSync(file);
  return answer(res, 200, CONTENT_TYPES[extname(file)] ?? "application/octet-stream", req.method === "HEAD" ? "" : body, {
    "cache-control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
    "content-length": String(body.length),
  });
}

/**
 * The API and the WebSocket are this same origin (`'self'` covers `ws:` to it), so the policy
 * names no other host; `X-Frame-Options` says `frame-ancestors 'none'` to browsers that predate it.
 */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "content-security-policy": consoleContentSecurityPolicy(),
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

function answer(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): true {
  res.writeHead(status, { "content-type": contentType, ...SECURITY_HEADERS, ...headers });
  res.end(body);
  return true;
}
