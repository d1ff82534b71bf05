import { SkillsError } from "../errors.js";

/** A route table that cannot be parsed is a programming error, found by the first request in any test. */
export class RoutePatternError extends Error {}

/** No route for this method and path (API.md gateway code NOT_FOUND). */
export class RouteNotFound extends SkillsError {
  readonly code = "NOT_FOUND";
  constructor(
    readonly method: string,
    readonly rawPath: string,
  ) {
    super(`No route for ${method} ${rawPath.slice(0, 200)}`);
  }
}

/** The path exists with other methods (API.md gateway code METHOD_NOT_ALLOWED); `allowed` goes to `Allow`. */
export class MethodNotAllowed extends SkillsError {
  readonly code = "METHOD_NOT_ALLOWED";
  constructor(
    readonly method: string,
    readonly allowed: readonly string[],
  ) {
    super(`Method ${method.slice(0, 20)} is not allowed here (allowed: ${allowed.join(", ")})`);
  }
}
