import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
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

/**
 * One MCP message per request (no batches, see below): a 64 KB prompt argument fits many times;
 * a bigger body is refused before it is parsed.
 */
const MAX_MCP_BODY_BYTES = 1024 * 1024;
export const MCP_PATH = "/brain/{tenant}/mcp";

/**
 * The API Gateway event as the web-standard Request the SDK's transport reads. A header the
 * Fetch API refuses (a Host that is no host name, a value with a line break) is the caller's
 * mistake: 400, not the TypeError's 500.
 */
function webRequest(request: AuthenticatedRequest, body: Buffer | undefined): Request {
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.event.headers ?? {})) if (value !== undefined) headers.set(name, value);
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(request.event.queryStringParameters ?? {})) if (value !== undefined) query.set(name, value);
    const host = headers.get("host") ?? "localhost";
    const url = `https://${host}${request.rawPath}?${query.toString()}`;
    if (!URL.canParse(url)) throw new InvalidRequest(`Host header '${host.slice(0, 100)}' is not a host name`);
    return new Request(url, { method: request.method, headers, ...(body !== undefined ? { body } : {}) });
  } catch (error) {
    if (error instanceof TypeError) throw new InvalidRequest(`Malformed request header: ${error.message.slice(0, 200)}`, { cause: error });
    throw error;
  }
}

/**
 * The protocol version we declare (2025-06-18 and later) removed JSON-RPC batches; the SDK still
 * accepts up to 100 messages, which let one request carry 100 renders or 100 file reads (issue
 * 28). A batch is refused as the protocol's Invalid Request before any message runs, so one
 * request is one message: the per-answer cap is the per-request cap, and the render budget of
 * one prompts/get is the HTTP API's per-request budget.
 */
function batchRefusal(body: Buffer | undefined): HttpReply | undefined {
  if (body === undefined) return undefined;
  const first = body.findIndex((byte) => byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d);
  if (first === -1 || body[first] !== 0x5b /* [ */) return undefined;
  return {
    statusCode: 400,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: ErrorCode.InvalidRequest,
        message: "JSON-RPC batches are not supported (MCP 2025-06-18 removed them): send one message per request",
      },
    }),
  };
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
    const body = readBody(request.event, { maxBytes: MAX_MCP_BODY_BYTES });
    const refused = batchRefusal(body);
    if (refused !== undefined) return refused;
    const web = webRequest(request, body);
    const server = createMcpServer(deps, { identity: request.identity, user: request.user, projectId, process });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      return await httpReply(await transport.handleRequest(web));
    } finally {
      await server.close();
    }
  };
  return [route("POST", MCP_PATH, handle), route("GET", MCP_PATH, handle), route("DELETE", MCP_PATH, handle)];
}
