import { ResponseTooLarge } from "./llm-errors.js";
import type { LlmCallOptions, LlmPort } from "./llm-port.js";
import type { Logger } from "../support/logger.js";

export interface OpenAiChatLlmOptions {
  /** Base URL; the adapter POSTs to `{url}/chat/completions`. */
  url: string;
  model: string;
  /** Bearer token, or how to get it (resolved on each call: cache inside if it is expensive). */
  apiKey?: string | (() => Promise<string | undefined>);
  timeoutMs: number;
  logger: Pick<Logger, "warn">;
  /** Cap on the response body; a larger reply counts as a failure. Default 1 MiB. */
  maxResponseBytes?: number;
  fetch?: typeof fetch;
}

const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * JSON mode requires the word "JSON" in the messages (OpenAI answers 400 otherwise), and the
 * caller's instruction may not say it.
 */
const JSON_ONLY = "Respond with one JSON object and nothing else.";

interface ChatCompletion {
  choices?: Array<{ message?: { content?: unknown } }>;
}

/** Reads at most `maxBytes` of the body, so a hostile or broken endpoint cannot flood memory. */
const readCapped = async (response: Response, maxBytes: number): Promise<string> => {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) throw new ResponseTooLarge();
  if (!response.body) return "";
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for await (const chunk of response.body) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) throw new ResponseTooLarge();
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
};

/** Models in JSON mode still sometimes wrap the object in a Markdown fence. */
const unfence = (content: string): string => {
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/i.exec(content.trim());
  return fenced?.[1] ?? content;
};

const parseJson = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
};

/**
 * LlmPort over an OpenAI-compatible chat-completions endpoint: the instruction as the system
 * message, the input as JSON in the user message, `response_format: json_object`, and the
 * first choice's content parsed as JSON. Every failure (HTTP status, timeout, network,
 * malformed reply) is logged as a warning without the key or the input, and answers null.
 */
export class OpenAiChatLlm implements LlmPort {
  private readonly endpoint: string;
  private readonly fetch: typeof fetch;
  private readonly maxResponseBytes: number;

  constructor(private readonly options: OpenAiChatLlmOptions) {
    this.endpoint = `${options.url.replace(/\/+$/, "")}/chat/completions`;
    this.fetch = options.fetch ?? fetch;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  }

  async callForJson(name: string, instruction: string, input: unknown, callOptions: LlmCallOptions = {}): Promise<unknown> {
    const warn = (reason: string, extra: Record<string, unknown> = {}): null => {
      this.options.logger.warn("LLM call failed; answering null", { llmCall: name, model: this.options.model, reason, ...extra });
      return null;
    };
    let userContent: string;
    try {
      userContent = JSON.stringify(input ?? null);
    } catch {
      return warn("input is not JSON data");
    }
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signal = callOptions.signal ? AbortSignal.any([timeout, callOptions.signal]) : timeout;
    try {
      const apiKey = typeof this.options.apiKey === "function" ? await this.options.apiKey() : this.options.apiKey;
      const response = await this.fetch(this.endpoint, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
        },
        body: JSON.stringify({
          model: this.options.model,
          messages: [
            { role: "system", content: `${instruction}\n\n${JSON_ONLY}` },
            { role: "user", content: userContent },
          ],
          response_format: { type: "json_object" },
        }),
        signal,
      });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        return warn("http status", { status: response.status });
      }
      const completion = parseJson(await readCapped(response, this.maxResponseBytes));
      if (!completion.ok) return warn("response is not JSON");
      const content = (completion.value as ChatCompletion | null)?.choices?.[0]?.message?.content;
      if (typeof content !== "string") return warn("response has no message content");
      const answer = parseJson(unfence(content));
      return answer.ok ? answer.value : warn("message content is not JSON");
    } catch (error) {
      if (error instanceof ResponseTooLarge) return warn("response too large", { maxResponseBytes: this.maxResponseBytes });
      if (timeout.aborted) return warn("timeout", { timeoutMs: this.options.timeoutMs });
      if (callOptions.signal?.aborted) return warn("aborted by caller");
      return warn("request failed", { error: error instanceof Error ? error.message : String(error) });
    }
  }
}
