import { apiError, SkillsConnectionError } from "./errors.js";

/** A token, or a function that returns a fresh one (called per request and per reconnect). */
export type TokenSource = string | (() => string | Promise<string>);

export interface RetryPolicy {
  /** Attempts per request for 429 / 502 / 503 / 504 answers. Default 4. */
  maxAttempts: number;
  /** First back-off when the answer has no `Retry-After`. Default 200 ms, doubled per attempt. */
  baseDelayMs: number;
  /** Cap on any single back-off, `Retry-After` included. Default 5 000 ms. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 200, maxDelayMs: 5_000 };

export interface TransportOptions {
  baseUrl: string | URL;
  token?: TokenSource;
  fetch?: typeof globalThis.fetch;
  retry?: Partial<RetryPolicy>;
  /** For tests: how the client waits between attempts and polls. */
  sleep?: (ms: number) => Promise<void>;
}

export interface SendOptions {
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as JSON with `content-type: application/json`. */
  json?: unknown;
  /** Sent as it is (a document's raw file). */
  raw?: Uint8Array | string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** 429 and 503 say "try again" (API.md, gateway codes); the 50x of a proxy in between likewise. */
const RETRYABLE = new Set([429, 502, 503, 504]);

export const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const retryAfterSeconds = (response: Response): number | undefined => {
  const value = Number.parseFloat(response.headers.get("retry-after") ?? "");
  return Number.isFinite(value) && value >= 0 ? value : undefined;
};

/** One path segment, encoded once. */
export const segment = (value: string): string => encodeURIComponent(value);

/** fetch with the bearer token, retries of "try again" answers, and API.md errors thrown as typed classes. */
export class HttpTransport {
  readonly baseUrl: string;
  private readonly doFetch: typeof globalThis.fetch;
  readonly retry: RetryPolicy;
  readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: TransportOptions) {
    this.baseUrl = String(options.baseUrl).replace(/\/+$/, "");
    // Bound, or a browser's fetch complains about being called on the wrong `this`.
    this.doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.sleep = options.sleep ?? defaultSleep;
  }

  async token(): Promise<string | undefined> {
    const source = this.options.token;
    return typeof source === "function" ? await source() : source;
  }

  url(path: string, query: SendOptions["query"] = {}): string {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    const search = params.toString();
    return `${this.baseUrl}${path}${search === "" ? "" : `?${search}`}`;
  }

  /** The response of a 2xx answer; anything else is thrown as a SkillsApiError subclass. */
  async send(method: string, path: string, options: SendOptions = {}): Promise<Response> {
    const url = this.url(path, options.query);
    const token = await this.token();
    const headers: Record<string, string> = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...options.headers };
    let body: string | Uint8Array | undefined;
    if (options.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.json);
    } else if (options.raw !== undefined) {
      body = options.raw;
    }
    for (let attempt = 1; ; attempt += 1) {
      let response: Response;
      try {
        // Under the DOM lib (the console) a Uint8Array<ArrayBufferLike> is no BodyInit; under Node's types it is.
        response = await this.doFetch(url, {
          method,
          headers,
          ...(body === undefined ? {} : { body: body as NonNullable<RequestInit["body"]> }),
          ...(options.signal ? { signal: options.signal } : {}),
        });
      } catch (error) {
        const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
        throw new SkillsConnectionError(
          `cannot reach ${this.baseUrl} (${error instanceof Error ? error.message : String(error)}${cause})`,
          { cause: error },
        );
      }
      if (response.ok) return response;
      if (RETRYABLE.has(response.status) && attempt < this.retry.maxAttempts) {
        await response.body?.cancel();
        const after = retryAfterSeconds(response);
        await this.sleep(Math.min(after === undefined ? this.retry.baseDelayMs * 2 ** (attempt - 1) : after * 1000, this.retry.maxDelayMs));
        continue;
      }
      throw await errorOf(response);
    }
  }

  async json<T>(method: string, path: string, options: SendOptions = {}): Promise<T> {
    const response = await this.send(method, path, options);
    return (await response.json()) as T;
  }
}

async function errorOf(response: Response): Promise<Error> {
  const text = await response.text().catch(() => "");
  let body: { error?: { code?: string; message?: string } } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  return apiError(response.status, body?.error, {
    requestId: response.headers.get("skills-request-id") ?? undefined,
    retryAfterSeconds: retryAfterSeconds(response),
    fallbackMessage: text.slice(0, 200) || response.statusText,
  });
}
