import { InvalidRequest } from "../errors.js";
import type { HostFunction } from "../sandbox/host-call.js";
import type { LlmPort } from "./llm-port.js";

const MAX_NAME_CHARS = 100;

/**
 * `vance.llm` for runScript bindings: `callForJson(name, instruction, input)` answers the
 * model's JSON or null. The call is aborted with the host call (timeout, script ended).
 */
export const llmScriptBindings = (llm: LlmPort): { callForJson: HostFunction } => ({
  callForJson: async ([name, instruction, input], call) => {
    if (typeof name !== "string" || name.length === 0 || name.length > MAX_NAME_CHARS) {
      throw new InvalidRequest(`vance.llm.callForJson: name must be a string of 1 to ${MAX_NAME_CHARS} characters`);
    }
    if (typeof instruction !== "string" || instruction.trim() === "")
      throw new InvalidRequest("vance.llm.callForJson: instruction must be a non-empty string");
    return llm.callForJson(name, instruction, input ?? null, { signal: call.signal });
  },
});
