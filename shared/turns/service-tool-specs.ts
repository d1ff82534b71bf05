import { scriptToolsOf, scriptToolSpec } from "../scripts/script-tools.js";
import type { ResolvedSkill } from "../skills/resolved-skill.js";
import { MAX_SKILL_READ_BYTES } from "../skills/skill-files.js";
import type { ToolSpec } from "../skills/tool-spec.js";

/** The service's own tools (API.md `POST …/tools/{toolName}`), beside the active skills' script tools. */
export const SKILL_REFERENCE_DOC_TOOL = "skill_reference_doc";
/** API.md "Catalog and model activation": the model activates a catalog skill. */
export const SKILL_ACTIVATE_TOOL = "skill_activate";
/** API.md "Catalog at scale": finds catalog candidates, listed or omitted, by relevance. */
export const SKILL_SEARCH_TOOL = "skill_search";
/** API.md "Skill files": reads a text file of an active skill's directory. */
export const SKILL_READ_FILE_TOOL = "skill_read_file";

/** The skill_search spec (API.md "Catalog at scale"). */
export const SKILL_SEARCH_SPEC: ToolSpec = {
  name: SKILL_SEARCH_TOOL,
  description:
    'Search every skill you may activate, also those the "Available skills" list leaves out, by what the user needs ' +
    "(product names, the task in a few words). Answers the best matches first with name, description and score; activate one with skill_activate.",
  inputSchema: {
    type: "object",
    properties: {
      query: {
        type: "string",
        minLength: 1,
        description: 'What the skill should do or which product it is for, e.g. "post a message to Slack"',
      },
      limit: { type: "integer", minimum: 1, maximum: 20, description: "Results at most; default 5" },
    },
    required: ["query"],
    additionalProperties: false,
  },
};

export const SERVICE_TOOL_SPECS: Readonly<Record<string, ToolSpec>> = {
  [SKILL_SEARCH_TOOL]: SKILL_SEARCH_SPEC,
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
  [SKILL_READ_FILE_TOOL]: {
    name: SKILL_READ_FILE_TOOL,
    description:
      "Read a text file of an active skill's directory (the files listed under the skill in the system prompt). " +
      `Paths are relative to the skill directory. A file larger than ${MAX_SKILL_READ_BYTES} bytes is read in parts with offset and limit, both in bytes of its UTF-8 text.`,
    inputSchema: {
      type: "object",
      properties: {
        skill: { type: "string", description: "Name of the active skill" },
        path: { type: "string", description: "Path relative to the skill directory, e.g. references/forms.md" },
        offset: {
          type: "integer",
          minimum: 0,
          description: "Byte offset to start at (moved forward to the next character boundary); default 0",
        },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: MAX_SKILL_READ_BYTES,
          description: `Bytes to read at most (cut back to a character boundary); default and maximum ${MAX_SKILL_READ_BYTES}`,
        },
      },
      required: ["skill", "path"],
      additionalProperties: false,
    },
  },
};

/** Which tools and specs a turn advertises besides the whitelist union. */
export interface ToolSpecProvider {
  /**
   * Tool names the included skills bring besides their `tools:` — the virtual tool of each
   * script (spec §13.2) — appended to the turn's whitelist, only ever added like skill tools.
   */
  toolsFor?(skills: readonly ResolvedSkill[]): string[];
  specsFor(input: { tools: readonly string[]; skills: readonly ResolvedSkill[] }): ToolSpec[];
}

/**
 * Specs for the service tools in the turn's whitelist and for the included skills' script
 * tools; other tools belong to the engine, which knows their specs.
 */
export class ServiceToolSpecs implements ToolSpecProvider {
  toolsFor(skills: readonly ResolvedSkill[]): string[] {
    return scriptToolsOf(skills).map((tool) => tool.name);
  }

  specsFor({ tools, skills }: { tools: readonly string[]; skills: readonly ResolvedSkill[] }): ToolSpec[] {
    const scripts = new Map(scriptToolsOf(skills).map((tool) => [tool.name, tool]));
    return tools.flatMap((name) => {
      const script = scripts.get(name);
      if (script) return [scriptToolSpec(script)];
      const spec = Object.prototype.hasOwnProperty.call(SERVICE_TOOL_SPECS, name) ? SERVICE_TOOL_SPECS[name] : undefined;
      return spec ? [structuredClone(spec)] : [];
    });
  }
}

/**
 * The skill_activate spec of one catalog. While the catalog lists every candidate its names are
 * an enum, so the model cannot name another skill; once it omits some (API.md "Catalog at
 * scale") any candidate may be activated — one found with skill_search too — so the name is free
 * text, checked by the lane like an explicit activation.
 */
export function skillActivateSpec(names: readonly string[], omitted = false): ToolSpec {
  return {
    name: SKILL_ACTIVATE_TOOL,
    description: omitted
      ? 'Activate a skill listed under "Available skills" in the system prompt, or one skill_search found, when the task matches its description. ' +
        "Answers with the skill's instructions; follow them. `args` is the rest of an invocation line, for skills that take arguments."
      : 'Activate one of the skills listed under "Available skills" in the system prompt when the task matches its description. ' +
        "Answers with the skill's instructions; follow them. `args` is the rest of an invocation line, for skills that take arguments.",
    inputSchema: {
      type: "object",
      properties: {
        name: omitted
          ? { type: "string", minLength: 1, maxLength: 128, description: "Name of the skill, as listed or as skill_search found it" }
          : { type: "string", enum: [...names], description: "Name of the skill, as listed" },
        args: { type: "string", description: "Arguments for the skill (optional)" },
      },
      required: ["name"],
      additionalProperties: false,
    },
  };
}
