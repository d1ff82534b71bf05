import * as z from "zod/mini";
import type { $ZodError } from "zod/v4/core";
import "../../contract/locale.js";
import { LaneMessageMalformed, LaneMessageTooLarge } from "./lane-errors.js";

/** Every mutation of a process, in the order the lane applies them. */
export const laneMessageKinds = [
  "skill.activate",
  "skill.clear",
  "skill.clearAll",
  "turn.compose",
  "turn.complete",
  "process.spawnActivate",
  "process.report",
] as const;

export const laneMessageKindSchema = z.enum(laneMessageKinds);
export type LaneMessageKind = z.infer<typeof laneMessageKindSchema>;

/** The principal the request was authorized for, as taken from the verified token. */
export const laneUserSchema = z.object({
  login: z.string().check(z.minLength(1), z.maxLength(256)),
  roles: z.optional(z.array(z.string().check(z.maxLength(256))).check(z.maxLength(256))),
  projects: z.optional(z.array(z.string().check(z.maxLength(256))).check(z.maxLength(1024))),
});
export type LaneUser = z.infer<typeof laneUserSchema>;

/**
 * Unknown top-level keys are stripped rather than rejected so a newer producer can add
 * fields without turning messages into poison for a worker that is not yet redeployed.
 * `payload` is validated per kind by whoever applies the message.
 */
export const laneMessageSchema = z.object({
  requestId: z.string().check(z.minLength(1), z.maxLength(512)),
  processId: z.string().check(z.minLength(1), z.maxLength(256)),
  tenant: z.string().check(z.minLength(1), z.maxLength(256)),
  /** The process's project, as the producer read it: a refusal is counted for it without reading the process again. */
  projectId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  user: z.nullable(laneUserSchema),
  kind: laneMessageKindSchema,
  payload: z.optional(z.unknown()),
  enqueuedAt: z.iso.datetime({ offset: true }),
});
export type LaneMessage = z.infer<typeof laneMessageSchema>;

/** One SQS message, and one Lambda record, carries at most 256 KiB. */
export const LANE_MESSAGE_MAX_BYTES = 256 * 1024;

// JSON.stringify leaves U+FFFE/U+FFFF unescaped, but SQS rejects them in a message body;
// they can only occur inside JSON strings, where a \u escape is equivalent. Characters above
// U+FFFF (emoji) are escaped too, as their two surrogate halves: SQS accepts them raw, but the
// local stack's emulator refuses them, and a chat message of "👍" must compose there as well.
const SQS_FORBIDDEN_NONCHARACTERS = /[\uFFFE\uFFFF\uD800-\uDFFF]/g;

/** Validates and serializes a message exactly as it will travel on the lane. */
export function encodeLaneMessage(message: LaneMessage, maxBytes: number = LANE_MESSAGE_MAX_BYTES): string {
  const checked = laneMessageSchema.safeParse(message);
  if (!checked.success) {
    throw new LaneMessageMalformed("does not match the lane message schema", describeIssues(checked.error));
  }
  let json: string;
  try {
    json = JSON.stringify(checked.data);
  } catch (cause) {
    throw new LaneMessageMalformed("payload is not JSON-serializable", [], { cause });
  }
  const body = json.replace(SQS_FORBIDDEN_NONCHARACTERS, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
  const bytes = Buffer.byteLength(body, "utf8");
  if (bytes > maxBytes) {
    throw new LaneMessageTooLarge(bytes, maxBytes);
  }
  return body;
}

/** Parses a delivered body; anything unusable is a {@link LaneMessageMalformed}, never a crash. */
export function decodeLaneMessage(body: unknown): LaneMessage {
  if (typeof body !== "string") {
    throw new LaneMessageMalformed("body is not a string");
  }
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (cause) {
    throw new LaneMessageMalformed("body is not JSON", [], { cause });
  }
  const parsed = laneMessageSchema.safeParse(raw);
  if (!parsed.success) {
    throw new LaneMessageMalformed("does not match the lane message schema", describeIssues(parsed.error));
  }
  return parsed.data;
}

function describeIssues(error: $ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`);
}
