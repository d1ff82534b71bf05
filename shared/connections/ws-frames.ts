import * as z from "zod";
import { InvalidRequest } from "../errors.js";
import { FootLogEntry, MAX_FOOT_LOG_ENTRIES } from "../scripts/foot-port.js";
import { describeZodIssues } from "../http/zod-issues.js";
import { ProcessSkillRequest, RequestId } from "../steering/process-skill-request.js";

/**
 * Client → server frames (API.md "WebSocket frames"), told apart by `type`. Unknown fields are
 * refused, as on the HTTP bodies: a misspelt `skillname` must not silently become "no name".
 * `requestId` is optional on every frame and echoed in the answer, for correlation.
 */
// eslint-disable-next-line no-control-regex
const Id = z.string().min(1).max(256).regex(/^[^\u0000-\u001f\u007f]+$/, "must be printable");

export const ProcessSkillFrame = ProcessSkillRequest.extend({
  type: z.literal("process-skill"),
  processId: Id,
});

export const ProcessSubscribeFrame = z.strictObject({
  type: z.literal("process-subscribe"),
  processId: Id,
  requestId: RequestId.optional(),
});

export const SkillListFrame = z.strictObject({
  type: z.literal("skill-list"),
  projectId: Id,
  processId: Id.optional(),
  /** The previous page's `nextCursor` (opaque). */
  cursor: z.string().min(1).max(512).optional(),
  requestId: RequestId.optional(),
});

/**
 * The Foot client's answer to a `process-skill-script-execute` (spec §13.5): exactly one of
 * `result` (the script's value, JSON) and `error`; `logs` are the script's `vance.log` entries,
 * which land in the tool result's trace.
 */
export const ProcessSkillScriptResultFrame = z
  .strictObject({
    type: z.literal("process-skill-script-result"),
    invocationId: Id,
    result: z.unknown().optional(),
    error: z.strictObject({ code: z.string().min(1).max(64).optional(), message: z.string().max(4_000) }).optional(),
    logs: z.array(FootLogEntry).max(MAX_FOOT_LOG_ENTRIES).optional(),
    requestId: RequestId.optional(),
  })
  .refine((frame) => ("result" in frame) !== (frame.error !== undefined), { message: "must carry exactly one of 'result' and 'error'" });

const ClientFrame = z.discriminatedUnion("type", [ProcessSkillFrame, ProcessSubscribeFrame, SkillListFrame, ProcessSkillScriptResultFrame]);

export type ProcessSkillFrame = z.infer<typeof ProcessSkillFrame>;
export type ProcessSubscribeFrame = z.infer<typeof ProcessSubscribeFrame>;
export type SkillListFrame = z.infer<typeof SkillListFrame>;
export type ProcessSkillScriptResultFrame = z.infer<typeof ProcessSkillScriptResultFrame>;
type ClientFrame = z.infer<typeof ClientFrame>;

const CLIENT_FRAME_TYPES = ["process-skill", "process-subscribe", "skill-list", "process-skill-script-result"] as const;

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
  const requestId = RequestId.safeParse(raw.requestId).success ? (raw.requestId as string) : undefined;
  if (typeof raw.type !== "string") return refuse(`Frame has no 'type'; expected one of ${CLIENT_FRAME_TYPES.join(", ")}`, requestId);
  if (!(CLIENT_FRAME_TYPES as readonly string[]).includes(raw.type)) {
    return refuse(`Unknown frame type ${shown(raw.type)}; expected one of ${CLIENT_FRAME_TYPES.join(", ")}`, requestId);
  }
  const parsed = ClientFrame.safeParse(raw);
  if (!parsed.success) return refuse(`Invalid ${raw.type} frame: ${describeZodIssues(parsed.error)}`, requestId);
  return { ok: true, frame: parsed.data };
}
