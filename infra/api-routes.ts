/**
 * Which Lambda serves which route: the one table behind the HTTP API, the WebSocket API and
 * the local stack, so a route cannot exist in one and be missing in the other. Paths follow
 * API.md; `{path+}` is API Gateway's greedy segment (the rest of the path, slashes included).
 * No CDK import here: the local stack loads this module too.
 */

export const FUNCTION_NAMES = [
  "http-skills",
  "http-processes",
  "http-steer",
  "http-documents",
  "http-tools",
  "http-mcp",
  "lane-worker",
  "ws-connect",
  "ws-disconnect",
  "ws-default",
  "authorizer",
  "s3-events",
] as const;

/** Also the folder under functions/ that holds `handler.ts`. */
export type FunctionName = (typeof FUNCTION_NAMES)[number];

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

export interface HttpRoute {
  method: HttpMethod;
  path: string;
  function: FunctionName;
  /** Only `/health` and `/openapi.json` are public; every other route goes through the authorizer. */
  public?: true;
}

export const HTTP_ROUTES: readonly HttpRoute[] = [
  { method: "GET", path: "/health", function: "http-skills", public: true },
  { method: "GET", path: "/openapi.json", function: "http-skills", public: true },

  { method: "GET", path: "/brain/{tenant}/skills/effective", function: "http-skills" },
  { method: "GET", path: "/brain/{tenant}/skills/effective/{name}", function: "http-skills" },
  { method: "GET", path: "/brain/{tenant}/skills/problems", function: "http-skills" },
  { method: "GET", path: "/brain/{tenant}/skills/active", function: "http-skills" },
  { method: "GET", path: "/brain/{tenant}/skills/usage", function: "http-skills" },
  { method: "GET", path: "/brain/{tenant}/skills/search", function: "http-skills" },
  { method: "GET", path: "/brain/{tenant}/skills/effective/{name}/evals", function: "http-skills" },

  { method: "POST", path: "/brain/{tenant}/sessions/{sessionId}/processes", function: "http-processes" },
  { method: "GET", path: "/brain/{tenant}/sessions/{sessionId}/processes", function: "http-processes" },
  { method: "GET", path: "/brain/{tenant}/processes/{processId}", function: "http-processes" },
  { method: "GET", path: "/brain/{tenant}/processes/{processId}/requests/{requestId}", function: "http-processes" },
  { method: "GET", path: "/brain/{tenant}/processes/{processId}/composition", function: "http-processes" },
  { method: "GET", path: "/brain/{tenant}/processes/{processId}/turns/{turnId}", function: "http-processes" },

  { method: "POST", path: "/brain/{tenant}/processes/{processId}/skill", function: "http-steer" },
  { method: "POST", path: "/brain/{tenant}/processes/{processId}/turns", function: "http-steer" },
  { method: "POST", path: "/brain/{tenant}/processes/{processId}/turns/{turnId}/complete", function: "http-steer" },

  { method: "GET", path: "/brain/{tenant}/projects/{project}/documents", function: "http-documents" },
  { method: "PUT", path: "/brain/{tenant}/projects/{project}/documents/{path+}", function: "http-documents" },
  { method: "GET", path: "/brain/{tenant}/projects/{project}/documents/{path+}", function: "http-documents" },
  { method: "DELETE", path: "/brain/{tenant}/projects/{project}/documents/{path+}", function: "http-documents" },
  { method: "POST", path: "/brain/{tenant}/projects/{project}/documents/{path+}", function: "http-documents" },

  { method: "POST", path: "/brain/{tenant}/processes/{processId}/tools/{toolName}", function: "http-tools" },

  // API.md "MCP": stateless Streamable HTTP; GET and DELETE answer 405 from the function (no sessions, no standing stream).
  { method: "POST", path: "/brain/{tenant}/mcp", function: "http-mcp" },
  { method: "GET", path: "/brain/{tenant}/mcp", function: "http-mcp" },
  { method: "DELETE", path: "/brain/{tenant}/mcp", function: "http-mcp" },
];

/** `$connect` runs behind the authorizer (token in `?token=`); the others inherit its identity. */
export const WEBSOCKET_ROUTES = {
  $connect: "ws-connect",
  $disconnect: "ws-disconnect",
  $default: "ws-default",
} as const satisfies Record<string, FunctionName>;

/** The WebSocket query parameter that carries the JWT on connect (API.md). */
export const WEBSOCKET_TOKEN_QUERY_PARAMETER = "token";
