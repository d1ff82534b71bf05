import { InvalidRequest } from "../../shared/errors.js";
import type { HttpRequest } from "./http-route.js";

/** A query parameter that must be present and non-empty. */
export function requiredQuery(request: HttpRequest, name: string): string {
  const value = request.query(name);
  if (value === undefined || value === "") throw new InvalidRequest(`Query parameter '${name}' is required`);
  return value;
}

/** An optional query parameter; present but empty is a mistake worth telling. */
export function optionalQuery(request: HttpRequest, name: string): string | undefined {
  const value = request.query(name);
  if (value === "") throw new InvalidRequest(`Query parameter '${name}' must not be empty when given`);
  return value;
}
