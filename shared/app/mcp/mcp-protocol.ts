import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { ServerResult } from "@modelcontextprotocol/sdk/types.js";
import { literal, looseObject, safeParse } from "zod/mini";
import type { $ZodIssue, $ZodLiteral, $ZodObject, output } from "zod/v4/core";
import "../../../contract/locale.js";
import { PayloadTooLarge, SkillsError } from "../../errors.js";
import { jsonBytes } from "../../turns/turn-errors.js";
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

/**
 * The largest answer one MCP request gets (one message per request: batches are refused by the
 * route). A Lambda answer is at most 6 MB; renders are capped where they are built
 * (MAX_RENDERED_BODY_BYTES, the template renderer's output cap) and resource reads before the
 * file is read (MAX_MCP_RESOURCE_BYTES), so this is the last line for anything else.
 */
export const MAX_MCP_ANSWER_BYTES = 6_000_000;

export class McpAnswerTooLarge extends PayloadTooLarge {
  constructor(method: string, bytes: number) {
    super(
      `The answer to ${method} would be ${bytes} bytes (limit ${MAX_MCP_ANSWER_BYTES}); ask for less (a page, one file)`,
      MAX_MCP_ANSWER_BYTES,
    );
  }
}

/** A result within MAX_MCP_ANSWER_BYTES, else McpAnswerTooLarge (-32602 with PAYLOAD_TOO_LARGE through `mapped`). */
export function withinAnswerCap<T>(method: string, result: T): T {
  const bytes = jsonBytes(result);
  if (bytes > MAX_MCP_ANSWER_BYTES) throw new McpAnswerTooLarge(method, bytes);
  return result;
}

/** Any zod 4 object schema with a literal `method`: ours (zod/mini) and the SDK's own (classic zod) alike. */
type MethodSchema = $ZodObject<{ method: $ZodLiteral<string> }>;

/** Zod's findings as one readable sentence: where, and what was expected. */
export function describeIssues(method: string, issues: readonly $ZodIssue[]): string {
  const shown = issues.slice(0, 3).map((issue) => {
    const where = issue.path.map(String).join(".");
    return `${where === "" ? "the request" : where}: ${issue.message.replace(/^Invalid input: /, "")}`;
  });
  return `Invalid ${method} request: ${shown.join("; ")}${issues.length > 3 ? ` (and ${issues.length - 3} more)` : ""}`;
}

/**
 * Registers a handler whose request is checked here, not by the SDK: the SDK's own check throws
 * the raw validation error, which the protocol answers as -32603 (internal error) with a JSON
 * dump; a malformed request is the caller's mistake, so it is -32602 with what is wrong (a prompt
 * argument that is not a string, …). Every answer is measured against MAX_MCP_ANSWER_BYTES.
 */
export function onRequest<S extends MethodSchema>(server: Server, schema: S, handler: (request: output<S>) => Promise<ServerResult>): void {
  const method = schema._zod.def.shape.method._zod.def.values[0] as string;
  server.setRequestHandler(looseObject({ method: literal(method) }), async (raw) => {
    const parsed = safeParse(schema, raw);
    if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, describeIssues(method, parsed.error.issues));
    return mapped(async () => withinAnswerCap(method, await handler(parsed.data)));
  });
}
