import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { SkillsApp } from "../../shared/app/skills-app.js";
import { createMcpServer } from "../../shared/app/mcp/mcp-server.js";
import type { McpServerDeps } from "../../shared/app/mcp/mcp-server.js";
import { assertProjectAccess } from "../../shared/auth/authorization.js";
import { InvalidRequest } from "../../shared/errors.js";
import { MethodNotAllowed } from "../../shared/http/http-errors.js";
import { readBody } from "../../shared/http/request.js";
import { route } from "../_shared/http-route.js";
import type { AuthenticatedRequest, HttpReply, HttpRoute } from "../_shared/http-route.js";
import { accessibleProcess } from "../_shared/process-access.js";
import { assertMcpOrigin } from "./mcp-origin.js";
import { optionalQuery, requiredQuery } from "../_shared/query.js";

interface McpRoutesDeps extends McpServerDeps {
  app: McpServerDeps["app"] & Pick<SkillsApp, "getProcess">;
}

/** A JSON-RPC batch of MCP requests is small; a bigger body is refused before it is parsed. */
const MAX_MCP_BODY_BYTES = 1024 * 1024;
export const MCP_PATH = "/brain/{tenant}/mcp";

/** The API Gateway event as the web-standard Request the SDK's transport reads. */
function webRequest(request: AuthenticatedRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.event.headers ?? {})) if (value !== undefined) headers.set(name, value);
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(request.event.queryStringParameters ?? {})) if (value !== undefined) query.set(name, value);
  const url = `https://${headers.get("host") ?? "localhost"}${request.rawPath}?${query.toString()}`;
  const body = request.method === "POST" ? readBody(request.event, { maxBytes: MAX_MCP_BODY_BYTES }) : undefined;
  return new Request(url, { method: request.method, headers, ...(body !== undefined ? { body } : {}) });
}

async function httpReply(response: Response): Promise<HttpReply> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  return { statusCode: response.status, headers, body: await response.text() };
}

/**
 * API.md "MCP": stateless Streamable HTTP. The HTTP wrapper has checked the token and the
 * tenant; here the project (membership, else 403) and the process (the caller's own, else
 * 403/404) are checked before any MCP message is read. A GET (the standing notification stream)
 * and a DELETE (session end) are 405: there are no sessions and a Lambda answer cannot stay open.
 */
export function mcpRoutes(deps: McpRoutesDeps): HttpRoute[] {
  const handle = async (request: AuthenticatedRequest): Promise<HttpReply> => {
    // First: a browser page of another site gets nothing, not even a method error (MCP transport rules).
    assertMcpOrigin(request.event.headers);
    // Before the transport: in stateless mode it would open a stream a buffered answer never ends.
    if (request.method !== "POST") throw new MethodNotAllowed(request.method, ["POST"]);
    const projectId = requiredQuery(request, "projectId");
    assertProjectAccess(request.identity, projectId);
    const processId = optionalQuery(request, "processId");
    const process = processId === undefined ? undefined : await accessibleProcess(deps.app, request, processId);
    if (process !== undefined && process.projectId !== projectId) {
      throw new InvalidRequest(`Process '${process.processId}' belongs to project '${process.projectId}', not '${projectId}'`);
    }
    const server = createMcpServer(deps, { identity: request.identity, user: request.user, projectId, process });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      return await httpReply(await transport.handleRequest(webRequest(request)));
    } finally {
      await server.close();
    }
  };
  return [route("POST", MCP_PATH, handle), route("GET", MCP_PATH, handle), route("DELETE", MCP_PATH, handle)];
}
