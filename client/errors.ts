import type { ApiErrorBody, DocumentProblem } from "./types.js";

/** API.md "Errors", first and second round: every code the service or its gateway answers. */
export const API_ERROR_STATUS = {
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
  INTERNAL: 500,
} as const;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

export const isApiErrorCode = (code: unknown): code is ApiErrorCode =>
  typeof code === "string" && Object.prototype.hasOwnProperty.call(API_ERROR_STATUS, code);

/** Any failure of this client; `instanceof SkillsClientError` catches them all. */
export class SkillsClientError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * An answer in the API.md error shape. `code` is the service's code (a code this client does not
 * know yet is kept as it came, typed as a string); the subclass says the family, so a caller can
 * `catch (e) { if (e instanceof NotFoundError) … }` or switch on `e.code`.
 */
export class SkillsApiError extends SkillsClientError {
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode | (string & {}),
    message: string,
    readonly problems: DocumentProblem[] = [],
    /** The lane request this error answers, when it was one (header `skills-request-id`). */
    readonly requestId?: string,
    /** Seconds from `Retry-After` (429, 503). */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

export class InvalidRequestError extends SkillsApiError {}
export class UnauthenticatedError extends SkillsApiError {}
export class ForbiddenError extends SkillsApiError {}
export class NotFoundError extends SkillsApiError {}
export class ConflictError extends SkillsApiError {}
export class InvalidDocumentError extends SkillsApiError {}
export class RateLimitedError extends SkillsApiError {}
export class ServiceUnavailableError extends SkillsApiError {}

const FAMILY: Record<number, typeof SkillsApiError> = {
  400: InvalidRequestError,
  401: UnauthenticatedError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  422: InvalidDocumentError,
  429: RateLimitedError,
  503: ServiceUnavailableError,
};

/** The typed error for a status and an API.md error body (or what stood in its place). */
export function apiError(
  status: number,
  body: Partial<ApiErrorBody> | undefined,
  extra: { requestId?: string | undefined; retryAfterSeconds?: number | undefined; fallbackMessage?: string } = {},
): SkillsApiError {
  const code = typeof body?.code === "string" ? body.code : status >= 500 ? "INTERNAL" : "HTTP_ERROR";
  const Family = FAMILY[status] ?? SkillsApiError;
  const problems = Array.isArray(body?.problems) ? body.problems : [];
  return new Family(status, code, typeof body?.message === "string" ? body.message : (extra.fallbackMessage ?? `HTTP ${status}`), problems, extra.requestId, extra.retryAfterSeconds);
}

/** A FAILED lane request's error, typed as the waited HTTP answer would have been. */
export function requestFailure(error: Partial<ApiErrorBody> | undefined, requestId: string): SkillsApiError {
  const status = isApiErrorCode(error?.code) ? API_ERROR_STATUS[error.code] : 500;
  return apiError(status, error, { requestId });
}

/** The service could not be reached at all (DNS, refused connection, TLS, aborted). */
export class SkillsConnectionError extends SkillsClientError {}

/** A lane request was still QUEUED when the caller's wait ran out; it may still be applied. */
export class SkillsTimeoutError extends SkillsClientError {
  constructor(
    readonly requestId: string,
    readonly waitedMs: number,
  ) {
    super(`request ${requestId} was still queued after ${waitedMs} ms`);
  }
}

/** The subscription gave up reconnecting, or was refused for good (token expired: close 4001). */
export class SkillsSubscriptionError extends SkillsClientError {
  constructor(
    message: string,
    readonly closeCode?: number,
  ) {
    super(message);
  }
}
