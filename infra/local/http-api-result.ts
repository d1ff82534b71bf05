/**
 * How API Gateway (HTTP API, payload format 2.0) turns a function's return value into a response:
 * an object with `statusCode` is the structured format; any other JSON value is the shorthand
 * (200, `application/json`, the value as body). A result it cannot use is a 500, as on AWS.
 */
interface HttpResponseParts {
  statusCode: number;
  headers: Record<string, string>;
  cookies: string[];
  body: Buffer;
}

export class MalformedFunctionResult extends Error {}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function headerMap(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw new MalformedFunctionResult("headers must be an object");
  const headers: Record<string, string> = {};
  for (const [name, raw] of Object.entries(value)) {
    if (raw === undefined || raw === null) continue;
    if (typeof raw === "object") throw new MalformedFunctionResult(`header '${name}' must be a string, number or boolean`);
    headers[name.toLowerCase()] = String(raw);
  }
  return headers;
}

export function httpResponseParts(result: unknown): HttpResponseParts {
  if (isRecord(result) && "statusCode" in result) {
    const statusCode = result.statusCode;
    if (typeof statusCode !== "number" || !Number.isInteger(statusCode) || statusCode < 100 || statusCode > 599) {
      throw new MalformedFunctionResult("statusCode must be an integer HTTP status");
    }
    const { body, isBase64Encoded, cookies } = result;
    if (body !== undefined && body !== null && typeof body !== "string") throw new MalformedFunctionResult("body must be a string");
    if (cookies !== undefined && !(Array.isArray(cookies) && cookies.every((c) => typeof c === "string"))) {
      throw new MalformedFunctionResult("cookies must be an array of strings");
    }
    const text = typeof body === "string" ? body : "";
    return {
      statusCode,
      headers: headerMap(result.headers),
      cookies: (cookies as string[] | undefined) ?? [],
      body: isBase64Encoded === true ? Buffer.from(text, "base64") : Buffer.from(text, "utf8"),
    };
  }
  if (result === undefined) {
    return { statusCode: 200, headers: {}, cookies: [], body: Buffer.alloc(0) };
  }
  return {
    statusCode: 200,
    headers: { "content-type": "application/json" },
    cookies: [],
    body: Buffer.from(typeof result === "string" ? result : JSON.stringify(result), "utf8"),
  };
}
