import * as z from "zod/mini";
import "../../contract/locale.js";
import { ToolNotFound } from "../errors.js";
import { SKILL_ACTIVATE_TOOL } from "../turns/service-tool-specs.js";
import { serviceTool } from "./tool-invoker.js";

/** Names are checked by the lane (SKILL_NOT_FOUND…), not against the catalog enum: the same answers as ACTIVATE. */
export const skillActivateTool = serviceTool({
  name: SKILL_ACTIVATE_TOOL,
  schema: z.strictObject({ name: z.string().check(z.minLength(1), z.maxLength(128)), args: z.optional(z.string()) }),
  async invoke(call) {
    if (call.activation === undefined) throw new ToolNotFound(SKILL_ACTIVATE_TOOL, "model activation is not wired in this function");
    return call.activation.activate(call.process, call.user, {
      skillName: call.args.name,
      ...(call.args.args !== undefined ? { args: call.args.args } : {}),
    });
  },
});
