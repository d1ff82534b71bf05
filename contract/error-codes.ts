/**
 * API.md "Errors": every code the service or its gateway answers, and its HTTP status. Plain data
 * (no zod), so the client takes it at no cost and the service's error table is this table.
 */
export const STATUS_BY_CODE = Object.freeze({
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  INVALID_REQUEST: 400,
  SKILL_NOT_FOUND: 404,
  PROCESS_NOT_FOUND: 404,
  SKILL_NOT_ALLOWED: 403,
  SKILL_LOCKED: 409,
  SKILL_ARGUMENT_MISSING: 422,
  INVALID_DOCUMENT: 422,
  NAME_TAKEN: 409,
  RECIPE_NOT_FOUND: 404,
  DOCUMENT_NOT_FOUND: 404,
  REQUEST_NOT_FOUND: 404,
  TOOL_NOT_FOUND: 404,
  REQUEST_CONFLICT: 409,
  PROCESS_ENDED: 409,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  TOO_MANY_REQUESTS: 429,
  SERVICE_UNAVAILABLE: 503,
  VERSIONS_UNAVAILABLE: 501,
  INTERNAL: 500,
} as const);

export type ErrorCode = keyof typeof STATUS_BY_CODE;

export const ERROR_CODES = Object.freeze(Object.keys(STATUS_BY_CODE) as ErrorCode[]);

export const isErrorCode = (code: unknown): code is ErrorCode =>
  typeof code === "string" && Object.prototype.hasOwnProperty.call(STATUS_BY_CODE, code);
