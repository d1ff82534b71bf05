import { SkillsError } from "../errors.js";

/** A route table that cannot be parsed is a programming error, found by the first request in any test. */
export class RoutePatternError extends Error {}

/** API.md 429: a per-identity or per-tenant limit; `retryAfterSeconds` becomes the Retry-After header. */
export class TooManyRequests extends SkillsError {
  readonly code = "TOO_MANY_REQUESTS";
  constructor(message: string, readonly retryAfterSeconds: number) {
    super(message);
  }
}
