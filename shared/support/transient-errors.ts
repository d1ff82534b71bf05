/**
 * Failures of a backing service (S3, DynamoDB, SQS) that say nothing about the request itself:
 * throttling, a 5xx, a timeout or a dropped connection. The same call may succeed later, so the
 * HTTP surface answers 503 SERVICE_UNAVAILABLE instead of a bare 500, and the lane's give-up
 * tells the caller to retry. Recognised by shape (name, status, Node error code), not by class:
 * domain code imports no SDK, and emulators do not always throw the SDK's classes.
 */
const TRANSIENT_NAMES: ReadonlySet<string> = new Set([
  "ProvisionedThroughputExceededException",
  "ThrottlingException",
  "Throttling",
  "ThrottledException",
  "RequestLimitExceeded",
  "RequestThrottled",
  "RequestThrottledException",
  "TooManyRequestsException",
  "SlowDown",
  "ServiceUnavailable",
  "ServiceUnavailableException",
  "InternalError",
  "InternalServerError",
  "InternalFailure",
  "TimeoutError",
  "RequestTimeout",
  "RequestTimeoutException",
]);

const TRANSIENT_NODE_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
]);

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  $retryable?: unknown;
}

export function isTransientServiceError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const shape = error as ErrorShape;
  if (TRANSIENT_NAMES.has(error.name)) return true;
  if (typeof shape.code === "string" && TRANSIENT_NODE_CODES.has(shape.code)) return true;
  const status = shape.$metadata?.httpStatusCode;
  if (typeof status === "number" && (status === 429 || status >= 500)) return true;
  return shape.$retryable !== undefined && shape.$retryable !== null && shape.$retryable !== false;
}
