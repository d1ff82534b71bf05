import { errorFrame } from "./server-frames.js";
import type { ProcessTurnScheduledFrame, ServerFrame, SkillListResultFrame } from "./server-frames.js";

/**
 * API Gateway refuses a PostToConnection payload above 128 KB (its messages travel as 32 KB
 * frames, reassembled by the client). Decimal KB: the safe reading of the quota.
 */
export const MAX_FRAME_BYTES = 128_000;

const ELLIPSIS = "…";

interface FittedFrame {
  /** The JSON to send; at most `maxBytes` UTF-8 bytes. */
  json: string;
  frame: ServerFrame;
  /** The frame is not the one asked for (shrunk, or replaced by an `error` frame). */
  altered: boolean;
}

const bytes = (json: string): number => Buffer.byteLength(json, "utf8");

/**
 * Encodes a frame so that it fits, shrinking it in the way its receiver can recover from
 * rather than failing the push: a result without `result` (the request record holds it), the
 * first skills of a list (HTTP lists them all), pending texts cut (the turn delivers them whole).
 * What cannot be shrunk becomes an `error` frame, so the client at least learns it missed something.
 */
export function fitFrame(frame: ServerFrame, maxBytes: number = MAX_FRAME_BYTES): FittedFrame {
  const json = JSON.stringify(frame);
  if (bytes(json) <= maxBytes) return { json, frame, altered: false };
  const smaller = shrink(frame, maxBytes);
  if (smaller) {
    const encoded = JSON.stringify(smaller);
    if (bytes(encoded) <= maxBytes) return { json: encoded, frame: smaller, altered: true };
  }
  const requestId = "requestId" in frame && typeof frame.requestId === "string" ? frame.requestId : undefined;
  const replacement = errorFrame(
    {
      code: "INTERNAL",
      message: `A ${frame.type} frame of ${bytes(json)} bytes exceeds the ${maxBytes}-byte WebSocket message limit and was not sent`,
    },
    requestId !== undefined && requestId.length <= 256 ? requestId : undefined,
  );
  return { json: JSON.stringify(replacement), frame: replacement, altered: true };
}

function shrink(frame: ServerFrame, maxBytes: number): ServerFrame | undefined {
  switch (frame.type) {
    case "process-skill-result":
    case "process-turn-result": {
      const { result: _result, ...rest } = frame;
      const error = rest.error ? { code: rest.error.code, message: cut(rest.error.message, 2000) } : undefined;
      return { ...rest, ...(error ? { error } : {}), truncated: true };
    }
    case "skill-list-result":
      return shrinkSkillList(frame, maxBytes);
    case "process-turn-scheduled":
      return shrinkPending(frame, maxBytes);
    default:
      return undefined;
  }
}

const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}${ELLIPSIS}` : text);

/** The longest prefix of the (name-sorted) skills that fits, found by bisection. */
function shrinkSkillList(frame: SkillListResultFrame, maxBytes: number): SkillListResultFrame | undefined {
  const withFirst = (count: number): SkillListResultFrame => ({
    ...frame,
    skills: frame.skills.slice(0, count),
    truncated: true,
    total: frame.skills.length,
  });
  if (bytes(JSON.stringify(withFirst(0))) > maxBytes) return undefined;
  let fits = 0;
  let tooMany = frame.skills.length;
  while (tooMany - fits > 1) {
    const middle = Math.floor((fits + tooMany) / 2);
    if (bytes(JSON.stringify(withFirst(middle))) <= maxBytes) fits = middle;
    else tooMany = middle;
  }
  return withFirst(fits);
}

/** Cuts every pending text to the same length, halving it until the frame fits; then drops them. */
function shrinkPending(frame: ProcessTurnScheduledFrame, maxBytes: number): ProcessTurnScheduledFrame {
  for (let max = 8192; max >= 16; max = Math.floor(max / 2)) {
    const candidate: ProcessTurnScheduledFrame = {
      ...frame,
      pending: frame.pending.map((m) => ({ ...m, text: cut(m.text, max) })),
      truncated: true,
    };
    if (bytes(JSON.stringify(candidate)) <= maxBytes) return candidate;
  }
  return { ...frame, pending: [], truncated: true };
}
