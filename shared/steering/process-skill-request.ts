import * as z from "zod";
import { InvalidRequest } from "../errors.js";
import type { LaneMessageKind } from "../lanes/lane-message.js";
import { MAX_ARGS_BYTES, utf8Bytes } from "../processes/process-limits.js";

/** A caller-chosen requestId: printable, bounded, so derived ids and store keys stay valid. */
// eslint-disable-next-line no-control-regex
export const RequestId = z.string().min(1).max(256).regex(/^[^\u0000-\u001f\u007f]+$/, "must be printable");

/** API.md ProcessSkillRequest (spec §6a). */
export const ProcessSkillRequest = z.strictObject({
  command: z.enum(["ACTIVATE", "CLEAR", "CLEAR_ALL"]),
  skillName: z.string().min(1).max(128).optional(),
  args: z.string().refine((t) => utf8Bytes(t) <= MAX_ARGS_BYTES, `must be at most ${MAX_ARGS_BYTES} bytes`).nullable().optional(),
  oneShot: z.boolean().optional(),
  requestId: RequestId.optional(),
});
export type ProcessSkillRequest = z.infer<typeof ProcessSkillRequest>;

export interface SkillLaneCommand {
  kind: Extract<LaneMessageKind, "skill.activate" | "skill.clear" | "skill.clearAll">;
  payload: Record<string, unknown>;
  requestId?: string | undefined;
}

/** Validates a ProcessSkillRequest and maps it to its lane message. */
export function toLaneCommand(body: unknown): SkillLaneCommand {
  const parsed = ProcessSkillRequest.safeParse(body);
  if (!parsed.success) {
    throw new InvalidRequest(`Invalid skill request: ${parsed.error.issues.map((i) => `${i.path.map(String).join(".") || "(body)"}: ${i.message}`).join("; ")}`);
  }
  const r = parsed.data;
  const needsName = (): string => {
    if (r.skillName === undefined) throw new InvalidRequest(`${r.command} needs a skillName`);
    return r.skillName;
  };
  switch (r.command) {
    case "ACTIVATE":
      return {
        kind: "skill.activate",
        payload: { skillName: needsName(), ...(r.args != null ? { args: r.args } : {}), ...(r.oneShot !== undefined ? { oneShot: r.oneShot } : {}) },
        requestId: r.requestId,
      };
    case "CLEAR":
      return { kind: "skill.clear", payload: { skillName: needsName() }, requestId: r.requestId };
    case "CLEAR_ALL":
      return { kind: "skill.clearAll", payload: {}, requestId: r.requestId };
  }
}
