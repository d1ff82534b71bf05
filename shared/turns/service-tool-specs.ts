import type { ResolvedSkill } from "../skills/resolved-skill.js";
import type { ToolSpec } from "./turn.js";

/** The service's own tools (API.md `POST …/tools/{toolName}`); skill script tools come later. */
export const SKILL_REFERENCE_DOC_TOOL = "skill_reference_doc";

export const SERVICE_TOOL_SPECS: Readonly<Record<string, ToolSpec>> = {
  manual_read: {
    name: "manual_read",
    description:
      "Read a manual document from the folders this turn may read (recipe and active skill manual paths), " +
      "or an on-demand skill reference by its title.",
    inputSchema: {
      type: "object",
      properties: { path: { type: "string", description: "Document path below one of the manual folders, or a reference title" } },
      required: ["path"],
      additionalProperties: false,
    },
  },
  manual_list: {
    name: "manual_list",
    description: "List the manual documents available to this turn, optionally below one folder.",
    inputSchema: {
      type: "object",
      properties: { path: { type: "string", description: "A folder to list; omit for all manual folders" } },
      additionalProperties: false,
    },
  },
  [SKILL_REFERENCE_DOC_TOOL]: {
    name: SKILL_REFERENCE_DOC_TOOL,
    description: "Load an on-demand reference document of an active skill (listed in the system prompt).",
    inputSchema: {
      type: "object",
      properties: {
        skill: { type: "string", description: "Name of the active skill" },
        title: { type: "string", description: "Title of the reference document" },
      },
      required: ["skill", "title"],
      additionalProperties: false,
    },
  },
};

/** Which specs a turn advertises. The skill-scripts issue adds a provider for script tools. */
export interface ToolSpecProvider {
  specsFor(input: { tools: readonly string[]; skills: readonly ResolvedSkill[] }): ToolSpec[];
}

/** Specs for the service tools that are in the turn's whitelist; other tools belong to the engine. */
export class ServiceToolSpecs implements ToolSpecProvider {
  specsFor({ tools }: { tools: readonly string[] }): ToolSpec[] {
    return tools.flatMap((name) => {
      const spec = Object.prototype.hasOwnProperty.call(SERVICE_TOOL_SPECS, name) ? SERVICE_TOOL_SPECS[name] : undefined;
      return spec ? [structuredClone(spec)] : [];
    });
  }
}
