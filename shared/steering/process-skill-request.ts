import { RequestId } from "../../contract/common.js";
import { ProcessSkillRequest } from "../../contract/requests.js";
import { InvalidRequest } from "../errors.js";
import type { LaneMessageKind } from "../lanes/lane-message.js";

/** API.md ProcessSkillRequest (spec §6a) and the caller-chosen requestId are the contract's. */
export { ProcessSkillRequest, RequestId };

export interface SkillLaneCommand {
  kind: Extract<LaneMessageKind, "skill.activate" | "skill.clear" | "skill.clearAll">;
  payload: Record<string, unknown>;
  requestId?: string | undefined;
}

/** Validates a ProcessSkillRequest and maps it to its lane message. */
export function toLaneCommand(body: unknown): SkillLaneCommand {
  const parsed = ProcessSkillRequest.safeParse(body);
  if (!parsed.success) {
    throw new InvalidRequest(
      `Invalid skill request: ${parsed.error.issues.map((i) => `${i.path.map(String).join(".") || "(body)"}: ${i.message}`).join("; ")}`,
    );
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
        payload: {
          skillName: needsName(),
          ...(r.args != null ? { args: r.args } : {}),
          ...(r.oneShot !== undefined ? { oneShot: r.oneShot } : {}),
        },
        requestId: r.requestId,
      };
    case "CLEAR":
      return { kind: "skill.clear", payload: { skillName: needsName() }, requestId: r.requestId };
    case "CLEAR_ALL":
      return { kind: "skill.clearAll", payload: {}, requestId: r.requestId };
  }
}
