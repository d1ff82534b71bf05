/** A route table that cannot be parsed is a programming error, found by the first request in any test. */
export class RoutePatternError extends Error {}
