/**
 * How API Gateway reads a Lambda authorizer's answer. A thrown "Unauthorized" is 401, any other
 * failure 500; an explicit or implicit deny is 403. HTTP APIs take simple responses
 * (`isAuthorized`) or an IAM policy; WebSocket `$connect` takes a policy only.
 */
export type AuthorizerOutcome =
  | { kind: "allow"; context: Record<string, unknown>; principalId?: string | undefined }
  | { kind: "unauthorized" }
  | { kind: "forbidden" }
  | { kind: "error"; error: unknown };

/** The error message that makes API Gateway answer 401 instead of 500. */
const UNAUTHORIZED_ERROR_MESSAGE = "Unauthorized";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

/** IAM-style wildcard match (`*` any run, `?` one character). */
function arnMatches(pattern: string, arn: string): boolean {
  const regex = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
  );
  return regex.test(arn);
}

function invokes(statement: Record<string, unknown>, resourceArn: string): boolean {
  const actions = asArray(statement.Action).filter((a): a is string => typeof a === "string");
  const resources = asArray(statement.Resource).filter((r): r is string => typeof r === "string");
  const actionMatches = actions.some((a) => a === "*" || a === "execute-api:*" || a.toLowerCase() === "execute-api:invoke");
  return actionMatches && resources.some((r) => arnMatches(r, resourceArn));
}

function policyAllows(result: Record<string, unknown>, resourceArn: string): boolean | undefined {
  if (!isRecord(result.policyDocument)) return undefined;
  const statements = asArray(result.policyDocument.Statement).filter(isRecord);
  const matching = statements.filter((s) => invokes(s, resourceArn));
  if (matching.some((s) => s.Effect === "Deny")) return false;
  return matching.some((s) => s.Effect === "Allow");
}

function contextOf(result: Record<string, unknown>, primitivesOnly: boolean): Record<string, unknown> | Error {
  const context = result.context ?? {};
  if (!isRecord(context)) return new Error("authorizer context must be an object");
  if (primitivesOnly) {
    const bad = Object.entries(context).find(([, v]) => v !== null && typeof v === "object");
    if (bad) return new Error(`authorizer context value '${bad[0]}' must be a string, number or boolean`);
  }
  return context;
}

export function authorizerFailure(error: unknown): AuthorizerOutcome {
  return error instanceof Error && error.message === UNAUTHORIZED_ERROR_MESSAGE ? { kind: "unauthorized" } : { kind: "error", error };
}

/** HTTP API (payload 2.0): simple response or policy. */
export function httpAuthorizerOutcome(result: unknown, routeArn: string): AuthorizerOutcome {
  if (!isRecord(result)) return { kind: "error", error: new Error("authorizer returned no object") };
  const allowed = typeof result.isAuthorized === "boolean" ? result.isAuthorized : policyAllows(result, routeArn);
  if (allowed === undefined) return { kind: "error", error: new Error("authorizer returned neither isAuthorized nor a policy") };
  if (!allowed) return { kind: "forbidden" };
  const context = contextOf(result, false);
  if (context instanceof Error) return { kind: "error", error: context };
  return { kind: "allow", context, principalId: typeof result.principalId === "string" ? result.principalId : undefined };
}

/** WebSocket `$connect` REQUEST authorizer: an IAM policy and a context of primitives. */
export function webSocketAuthorizerOutcome(result: unknown, methodArn: string): AuthorizerOutcome {
  if (!isRecord(result)) return { kind: "error", error: new Error("authorizer returned no object") };
  const allowed = policyAllows(result, methodArn);
  if (allowed === undefined) return { kind: "error", error: new Error("authorizer returned no policyDocument") };
  if (!allowed) return { kind: "forbidden" };
  const context = contextOf(result, true);
  if (context instanceof Error) return { kind: "error", error: context };
  return { kind: "allow", context, principalId: typeof result.principalId === "string" ? result.principalId : undefined };
}
