import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { SkillsError } from "../../errors.js";
import { statusForCode } from "../../http/error-table.js";

/** Items of one `…/list` page: a host asks again with `nextCursor`. */
export const MCP_PAGE_SIZE = 100;

/** MCP's "resource not found" (not a JSON-RPC standard code, the protocol's own). */
export const RESOURCE_NOT_FOUND = -32002;

/** An opaque cursor: the offset of the page's first item (base64url, so hosts do not parse it). */
export function page<T>(items: readonly T[], cursor: string | undefined, size = MCP_PAGE_SIZE): { items: T[]; nextCursor?: string } {
  let offset = 0;
  if (cursor !== undefined) {
    const decoded = Buffer.from(cursor, "base64url").toString("utf8");
    offset = /^\d{1,9}$/.test(decoded) ? Number(decoded) : Number.NaN;
    if (!Number.isSafeInteger(offset)) throw new McpError(ErrorCode.InvalidParams, `Invalid cursor '${cursor.slice(0, 40)}'`);
  }
  const end = offset + size;
  return { items: items.slice(offset, end), ...(end < items.length ? { nextCursor: Buffer.from(String(end)).toString("base64url") } : {}) };
}

/**
 * A service error as the protocol's: bad input (any 4xx of API.md's table) is -32602 with the
 * service's message and its code in `data`, so a host sees SKILL_ARGUMENT_MISSING's text. Other
 * errors pass unchanged (the SDK answers them -32603).
 */
export function toMcpError(error: unknown, notFound: number = ErrorCode.InvalidParams): unknown {
  if (error instanceof McpError || !(error instanceof SkillsError)) return error;
  const status = statusForCode(error.code);
  if (status >= 500) return error;
  return new McpError(status === 404 ? notFound : ErrorCode.InvalidParams, error.message, { code: error.code });
}

/** Runs a handler, turning service errors into protocol errors (`notFound`: the code for a 404, e.g. RESOURCE_NOT_FOUND). */
export async function mapped<T>(run: () => Promise<T>, notFound?: number): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toMcpError(error, notFound);
  }
}
