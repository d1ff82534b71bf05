import * as z from "zod/mini";
import "./locale.js";

/** The answers of the routes around the API proper: liveness, the tool call, the MCP endpoint. */

export const Health = z.object({ status: z.literal("ok") });

/** `POST …/tools/{toolName}`: the tool's result (script tools add their `logs`). */
export const ToolResult = z.looseObject({ result: z.optional(z.unknown()) });

/** `POST /brain/{tenant}/mcp`: a JSON-RPC answer (or a batch's first), errors included. */
export const McpAnswer = z.looseObject({ jsonrpc: z.literal("2.0") });
