import { Unauthenticated } from "./auth-errors.js";

const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

/** The token of an `Authorization: Bearer <token>` header value; anything else is `Unauthenticated`. */
export function bearerToken(authorization: string | undefined): string {
  if (authorization === undefined || authorization.trim() === "") throw new Unauthenticated("Authorization header is missing");
  const match = BEARER.exec(authorization);
  if (!match?.[1]) throw new Unauthenticated("Authorization header is not 'Bearer <token>'");
  return match[1];
}
