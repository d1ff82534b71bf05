import type { LaneUser } from "../lanes/lane-message.js";
import type { Process } from "../processes/process.js";
import type { ScriptTool } from "./script-tools.js";

/** `vance.context()` (spec §13.4): read-only metadata of the process, skill, script and recipe. */
interface ScriptContext {
  tenant: string;
  user: string | null;
  process: {
    processId: string;
    name: string;
    sessionId: string;
    projectId: string;
    status: string;
    mode: string | null;
    statusText: string | null;
    activeSkills: { name: string; oneShot: boolean; fromRecipe: boolean }[];
  };
  skill: { name: string; title: string; version: string | null; source: string };
  script: { name: string; target: "BRAIN" | "FOOT" };
  recipe: { name: string; engine: string; locked: boolean };
  /** How many scripts enclose this one (0: called directly). */
  depth: number;
}

/** A fresh copy per call: the guest gets JSON data, so changing it changes nothing else. */
export function scriptContext(process: Process, user: LaneUser | null, tool: ScriptTool, depth: number): ScriptContext {
  return {
    tenant: process.tenant,
    user: user?.login ?? null,
    process: {
      processId: process.processId,
      name: process.name,
      sessionId: process.sessionId,
      projectId: process.projectId,
      status: process.status,
      mode: process.mode ?? null,
      statusText: process.statusText ?? null,
      activeSkills: process.activeSkills.map((s) => ({ name: s.name, oneShot: s.oneShot, fromRecipe: s.fromRecipe })),
    },
    skill: { name: tool.skill.name, title: tool.skill.title, version: tool.skill.version ?? null, source: tool.skill.source },
    script: { name: tool.script.name, target: tool.script.target },
    recipe: { name: process.recipe, engine: process.engine, locked: process.locked },
    depth,
  };
}
