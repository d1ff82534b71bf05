/**
 * The service's own tools: added to a turn by the service's rules (the catalog, files, on-demand
 * references) or by the engine and recipe, never by a skill. A skill that lists one in `tools` or
 * `allowed-tools` gets a warning at save and nothing at turn time: `tools: [skill_activate]`
 * would otherwise turn model activation back on in a recipe whose catalog is off (issue 28).
 * `skill_search` is reserved with them (API.md, third round).
 */
export const SERVICE_TOOL_NAMES: ReadonlySet<string> = new Set([
  "manual_read",
  "manual_list",
  "skill_reference_doc",
  "skill_read_file",
  "skill_activate",
  "skill_search",
]);

export const isServiceTool = (name: string): boolean => SERVICE_TOOL_NAMES.has(name);
