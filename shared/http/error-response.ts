import { $ZodError } from "zod/v4/core";
import { SkillsError } from "../errors.js";
import type { DocumentProblem, ErrorCode } from "../errors.js";
import { isTransientServiceError } from "../support/transient-errors.js";
import { isErrorCode, statusForCode } from "./error-table.js";
import { describeZodIssues } from "./zod-issues.js";

/** API.md: `problems[]` entries of an INVALID_DOCUMENT error. */
export interface ProblemBody {
  path: string;
  line?: number;
  message: string;
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; problems?: ProblemBody[] };
}

interface ErrorResult {
  statusCode: number;
  body: ErrorBody;
  /** `Retry-After` of a 429, `Allow` of a 405. */
  headers?: Record<string, string>;
}

/** `Retry-After` of an error that says when to come back (429 limits, a busy catalogue's 503), `Allow` of a 405. */
function headersOf(error: unknown): Record<string, string> | undefined {
  const own = (error ?? {}) as { retryAfterSeconds?: unknown; allowed?: unknown; code?: unknown };
  const seconds = own.retryAfterSeconds;
  if (typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0)
    return { "retry-after": String(Math.max(1, Math.ceil(seconds))) };
  if (own.code === "METHOD_NOT_ALLOWED" && Array.isArray(own.allowed)) return { allow: own.allowed.join(", ") };
  return undefined;
}

export const INTERNAL_ERROR_MESSAGE = "Internal error";
export const SERVICE_UNAVAILABLE_MESSAGE = "A backing service is busy or unavailable; retry later";
const MAX_MESSAGE_LENGTH = 2000;
const MAX_PROBLEMS = 100;

const bounded = (message: string): string => (message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH)}…` : message);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

function toProblem(value: unknown, fallbackPath: string): ProblemBody | undefined {
  if (!isRecord(value) || typeof value.message !== "string") return undefined;
  const path = typeof value.path === "string" ? value.path : fallbackPath;
  return typeof value.line === "number" ? { path, line: value.line, message: value.message } : { path, message: value.message };
}

/**
 * Problems that made the document invalid (warnings only when nothing is an error, so the list
 * is never empty); errors without a list (e.g. a template error) become a single problem.
 */
function problemsOf(error: SkillsError): ProblemBody[] {
  const own = error as unknown as { problems?: unknown; path?: unknown; line?: unknown };
  const fallbackPath = typeof own.path === "string" ? own.path : "";
  if (Array.isArray(own.problems) && own.problems.length > 0) {
    const all = own.problems as Partial<DocumentProblem>[];
    const errors = all.filter((p) => isRecord(p) && p.severity !== "warning");
    return (errors.length > 0 ? errors : all)
      .slice(0, MAX_PROBLEMS)
      .map((p) => toProblem(p, fallbackPath))
      .filter((p): p is ProblemBody => p !== undefined);
  }
  const single = toProblem({ path: fallbackPath, line: own.line, message: error.message }, fallbackPath);
  return single ? [single] : [];
}

/**
 * Any thrown value → status + API.md error body. Domain errors keep their message; a throttled or
 * unreachable backing service is 503 SERVICE_UNAVAILABLE (the caller may retry); anything else
 * (or deliberately INTERNAL) gets a generic message, so internals never reach a caller.
 * Callers log the original error when `statusCode >= 500`.
 */
export function errorResponse(error: unknown): ErrorResult {
  if (error instanceof $ZodError) {
    return {
      statusCode: 400,
      body: { error: { code: "INVALID_REQUEST", message: bounded(`Invalid request: ${describeZodIssues(error)}`) } },
    };
  }
  if (error instanceof SkillsError && isErrorCode(error.code) && error.code !== "INTERNAL") {
    const body: ErrorBody = { error: { code: error.code, message: bounded(error.message) } };
    if (error.code === "INVALID_DOCUMENT") body.error.problems = problemsOf(error);
    const headers = headersOf(error);
    return { statusCode: statusForCode(error.code), body, ...(headers ? { headers } : {}) };
  }
  if (isTransientServiceError(error)) {
    const headers = headersOf(error);
    return {
      statusCode: 503,
      body: { error: { code: "SERVICE_UNAVAILABLE", message: SERVICE_UNAVAILABLE_MESSAGE } },
      ...(headers ? { headers } : {}),
    };
  }
  return { statusCode: 500, body: { error: { code: "INTERNAL", message: INTERNAL_ERROR_MESSAGE } } };
}
