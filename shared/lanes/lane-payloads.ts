import * as z from "zod/mini";
import "../../contract/locale.js";
import { TurnContext } from "../../contract/requests.js";
import { MAX_TURN_ID_LENGTH } from "../processes/turn-ids.js";
import { ProcessStatus } from "../processes/process.js";
import { MAX_ARGS_BYTES, MAX_PENDING_TEXT_BYTES, utf8Bytes } from "../processes/process-limits.js";
import { InvalidLanePayload } from "./lane-errors.js";
import type { LaneMessageKind } from "./lane-message.js";

/**
 * The payload of each lane message kind. Producers validate before enqueueing (so a caller gets
 * INVALID_REQUEST at once) and the applier validates again (a message is data from a queue).
 * Objects are strict: a misspelt field is an error, not silently ignored.
 */
const maxBytes = (limit: number) => (text: string) => utf8Bytes(text) <= limit;

const skillName = z.string().check(z.minLength(1), z.maxLength(128));
const id = z.string().check(z.minLength(1), z.maxLength(256));
/** A turnId names its compose request (turn-ids.ts), so it is as long as an encoded requestId may be. */
const turnId = z.string().check(z.minLength(1), z.maxLength(MAX_TURN_ID_LENGTH));
const args = z.string().check(z.refine(maxBytes(MAX_ARGS_BYTES), `must be at most ${MAX_ARGS_BYTES} bytes`));

export const SkillActivatePayload = z.strictObject({
  skillName,
  args: z.optional(z.nullable(args)),
  oneShot: z.optional(z.boolean()),
  /** Who asks: absent = explicit (`/skill`, ACTIVATE); `model` = the skill_activate tool (API.md). */
  activatedBy: z.optional(z.enum(["explicit", "model"])),
});

export const SkillClearPayload = z.strictObject({ skillName });

const SkillClearAllPayload = z.strictObject({});

/** What the engine knows about the turn it is about to run (the contract's compose body field); only rendering sees it. */
export { TurnContext };

export const TurnComposePayload = z.strictObject({
  turnId,
  message: z.optional(z.string().check(z.refine(maxBytes(MAX_PENDING_TEXT_BYTES), `must be at most ${MAX_PENDING_TEXT_BYTES} bytes`))),
  context: z.optional(TurnContext),
});

export const TurnCompletePayload = z.strictObject({
  turnId,
  // Model output: kept in full up to the lane's message size, cut when stored (steering-limits.ts).
  output: z.string(),
  final: z.optional(z.boolean()),
});

export const ProcessSpawnActivatePayload = z.strictObject({
  skillName,
  args: z.nullable(args),
  parentProcessId: id,
  parentRequestId: z.string().check(z.minLength(1), z.maxLength(512)),
});

export const ProcessReportPayload = z.strictObject({
  childProcessId: id,
  childName: z.string().check(z.minLength(1), z.maxLength(256)),
  output: z.string(),
  status: ProcessStatus,
});

export const lanePayloadSchemas = {
  "skill.activate": SkillActivatePayload,
  "skill.clear": SkillClearPayload,
  "skill.clearAll": SkillClearAllPayload,
  "turn.compose": TurnComposePayload,
  "turn.complete": TurnCompletePayload,
  "process.spawnActivate": ProcessSpawnActivatePayload,
  "process.report": ProcessReportPayload,
} as const satisfies Record<LaneMessageKind, z.ZodMiniType>;

export type LanePayloads = { [K in LaneMessageKind]: z.infer<(typeof lanePayloadSchemas)[K]> };
export type SkillActivatePayload = LanePayloads["skill.activate"];
export type SkillClearPayload = LanePayloads["skill.clear"];
export type TurnComposePayload = LanePayloads["turn.compose"];
export type TurnCompletePayload = LanePayloads["turn.complete"];
export type ProcessSpawnActivatePayload = LanePayloads["process.spawnActivate"];
export type ProcessReportPayload = LanePayloads["process.report"];

/** `skill.clearAll` may travel without a payload; every other kind needs one. */
export function parseLanePayload<K extends LaneMessageKind>(kind: K, payload: unknown): LanePayloads[K] {
  const schema: z.ZodMiniType = lanePayloadSchemas[kind];
  const parsed = schema.safeParse(payload === undefined && kind === "skill.clearAll" ? {} : payload);
  if (!parsed.success) {
    throw new InvalidLanePayload(
      kind,
      parsed.error.issues.map((i) => `${i.path.map(String).join(".") || "(payload)"}: ${i.message}`),
    );
  }
  return parsed.data as LanePayloads[K];
}
