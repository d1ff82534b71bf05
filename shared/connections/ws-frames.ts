import * as z from "zod/mini";
import { RequestId } from "../../contract/common.js";
import { CLIENT_FRAME_TYPES, ClientFrame } from "../../contract/ws-frames.js";
import { InvalidRequest } from "../errors.js";
import { describeZodIssues } from "../http/zod-issues.js";

/**
 * Client → server frames (API.md "WebSocket frames") are the contract's (contract/ws-frames.ts),
 * told apart by `type`; unknown fields are refused, as on the HTTP bodies.
 */
export type {
  ClientFrame,
  ProcessSkillFrame,
  ProcessSkillScriptResultFrame,
  ProcessSubscribeFrame,
  SkillListFrame,
} from "../../contract/index.js";

/** API Gateway's inbound message limit; the local stack and tests may send more. */
export const MAX_CLIENT_FRAME_BYTES = 128_000;

type ParsedClientFrame =
  | { ok: true; frame: ClientFrame }
  /** `requestId`: the refused frame's own, when it had a valid one, so the client can correlate. */
  | { ok: false; error: InvalidRequest; requestId?: string };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const shown = (value: string): string => JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);

/** Parses one `$default` message body; never throws. */
export function parseClientFrame(body: string | undefined | null, options: { isBase64Encoded?: boolean } = {}): ParsedClientFrame {
  const refuse = (message: string, requestId?: string): ParsedClientFrame => ({
    ok: false,
    error: new InvalidRequest(message),
    ...(requestId === undefined ? {} : { requestId }),
  });
  if (options.isBase64Encoded) return refuse("Binary frames are not accepted; send JSON text frames");
  if (typeof body !== "string" || body.trim() === "") return refuse("Empty frame; expected a JSON object with a 'type'");
  if (Buffer.byteLength(body, "utf8") > MAX_CLIENT_FRAME_BYTES) return refuse(`Frame exceeds ${MAX_CLIENT_FRAME_BYTES} bytes`);

  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return refuse("Frame is not valid JSON");
  }
  if (!isRecord(raw)) return refuse("Frame must be a JSON object with a 'type'");
  const requestId = z.safeParse(RequestId, raw.requestId).success ? (raw.requestId as string) : undefined;
  if (typeof raw.type !== "string") return refuse(`Frame has no 'type'; expected one of ${CLIENT_FRAME_TYPES.join(", ")}`, requestId);
  if (!(CLIENT_FRAME_TYPES as readonly string[]).includes(raw.type)) {
    return refuse(`Unknown frame type ${shown(raw.type)}; expected one of ${CLIENT_FRAME_TYPES.join(", ")}`, requestId);
  }
  const parsed = z.safeParse(ClientFrame, raw);
  if (!parsed.success) return refuse(`Invalid ${raw.type} frame: ${describeZodIssues(parsed.error)}`, requestId);
  return { ok: true, frame: parsed.data };
}
