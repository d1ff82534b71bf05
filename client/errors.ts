import { isErrorCode, STATUS_BY_CODE } from "../contract/error-codes.js";
import type { ErrorCode } from "../contract/error-codes.js";
import type { ApiErrorBody, DocumentProblem } from "./types.js";

/** API.md "Errors": every code the service or its gateway answers, with its status (the contract's table). */
export const API_ERROR_STATUS = STATUS_BY_CODE;

export type ApiErrorCode = ErrorCode;

export const isApiErrorCode: (code: unknown) => code is ApiErrorCode = isErrorCode;

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
  return new Family(
    status,
    code,
    typeof body?.message === "string" ? body.message : (extra.fallbackMessage ?? `HTTP ${status}`),
    problems,
    extra.requestId,
    extra.retryAfterSeconds,
  );
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
