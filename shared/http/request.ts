import * as z from "zod/mini";
import { InvalidRequest } from "../errors.js";
import { describeZodIssues } from "./zod-issues.js";

/**
 * The parts of an API Gateway HTTP API (payload v2) event that request parsing reads. Structural,
 * so events carrying any authorizer context (and the local stack's events) fit.
 */
export interface HttpRequestEvent {
  readonly headers?: Readonly<Record<string, string | undefined>> | null;
  readonly queryStringParameters?: Readonly<Record<string, string | undefined>> | null;
  readonly body?: string | null;
  readonly isBase64Encoded?: boolean;
}

/** Lane messages cap what a request can carry anyway; documents get their own, larger cap. */
const DEFAULT_MAX_JSON_BODY_BYTES = 64 * 1024;
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Case-insensitive: API Gateway lowercases v2 header names, other callers may not. */
export function headerValue(headers: Readonly<Record<string, string | undefined>> | null | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const exact = headers[name];
  if (exact !== undefined) return exact;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
}

export const header = (event: HttpRequestEvent, name: string): string | undefined => headerValue(event.headers, name);

/** One query parameter as API Gateway decoded it (repeated parameters arrive comma-joined). */
export function queryParam(event: HttpRequestEvent, name: string): string | undefined {
  const params = event.queryStringParameters;
  if (!params || !Object.prototype.hasOwnProperty.call(params, name)) return undefined;
  return params[name];
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The raw body bytes (base64 bodies decoded), refused above `maxBytes` before decoding. */
export function readBody(event: HttpRequestEvent, options: { maxBytes?: number } = {}): Buffer {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BODY_BYTES;
  const body = event.body ?? "";
  if (body === "") return Buffer.alloc(0);
  if (event.isBase64Encoded) {
    const compact = body.replace(/\s+/g, "");
    if (compact.length % 4 !== 0 || !BASE64.test(compact)) throw new InvalidRequest("Request body is not valid base64");
    if (Buffer.byteLength(compact, "base64") > maxBytes) throw new InvalidRequest(`Request body is larger than ${maxBytes} bytes`);
    return Buffer.from(compact, "base64");
  }
  if (Buffer.byteLength(body, "utf8") > maxBytes) throw new InvalidRequest(`Request body is larger than ${maxBytes} bytes`);
  return Buffer.from(body, "utf8");
}

/**
 * The body parsed as JSON and validated with `schema`. An absent or empty body is `{}`, so a
 * schema whose fields are all optional accepts it; any failure is 400 INVALID_REQUEST.
 */
/** `schema`: a contract schema (zod/mini) or any other zod 4 schema. */
export function parseJsonBody<S extends z.core.$ZodType>(
  event: HttpRequestEvent,
  schema: S,
  options: { maxBytes?: number } = {},
): z.output<S> {
  const bytes = readBody(event, { maxBytes: options.maxBytes ?? DEFAULT_MAX_JSON_BODY_BYTES });
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    throw new InvalidRequest("Request body is not valid UTF-8", { cause: error });
  }
  let value: unknown = {};
  if (text.trim() !== "") {
    try {
      value = JSON.parse(text) as unknown;
    } catch (error) {
      throw new InvalidRequest("Request body is not valid JSON", { cause: error });
    }
  }
  const parsed = z.safeParse(schema, value);
  if (!parsed.success) throw new InvalidRequest(`Invalid request body: ${describeZodIssues(parsed.error)}`);
  return parsed.data;
}
