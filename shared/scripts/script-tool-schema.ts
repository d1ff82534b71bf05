import { InvalidRequest } from "../errors.js";
import type { SkillArgument, SkillScript } from "../skills/skill-frontmatter.js";

/** JSON Schema of a script tool's `args` (spec §13.7, `SkillScriptTool.paramsSchema()`). */
interface ScriptParamsSchema {
  type: "object";
  properties: Record<string, { type: string; description?: string; enum?: (string | number | boolean)[] }>;
  required?: string[];
  additionalProperties: true;
}

/**
 * One property per declared param with its type (+ description), required ones listed in
 * `required`; `additionalProperties` stays true, so a script may still read undeclared
 * optional args. Without params the tool is free-form: no properties, anything goes.
 */
export function scriptParamsSchema(params: readonly SkillArgument[] | undefined): ScriptParamsSchema {
  const properties: ScriptParamsSchema["properties"] = {};
  const required: string[] = [];
  for (const param of params ?? []) {
    properties[param.name] = {
      type: param.type,
      ...(param.description !== undefined && param.description !== "" ? { description: param.description } : {}),
      ...(param.enum !== undefined ? { enum: [...param.enum] } : {}),
    };
    if (param.required) required.push(param.name);
  }
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}), additionalProperties: true };
}

const typeOf = (value: unknown): string => {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
};

const matches = (declared: SkillArgument["type"], value: unknown): boolean => {
  const actual = typeOf(value);
  if (declared === "number") return actual === "number" || actual === "integer";
  return actual === declared;
};

/**
 * Checks the args a caller (the model) passed against the declared params: a required param
 * must be present and every declared param that is present must have its type. Undeclared
 * args pass through (additionalProperties: true). The script still does its own shape checks.
 */
export function checkScriptArgs(script: Pick<SkillScript, "name" | "params">, args: Record<string, unknown>): void {
  const problems: string[] = [];
  for (const param of script.params ?? []) {
    const present = Object.hasOwn(args, param.name) && args[param.name] !== undefined;
    if (!present) {
      if (param.required) problems.push(`'${param.name}' is required`);
      continue;
    }
    if (param.enum !== undefined && !param.enum.includes(args[param.name] as string | number | boolean)) {
      problems.push(`'${param.name}' must be one of ${param.enum.map((v) => JSON.stringify(v)).join(", ")}`);
      continue;
    }
    if (!matches(param.type, args[param.name]))
      problems.push(
        `'${param.name}' must be ${param.type === "integer" || param.type === "array" || param.type === "object" ? "an" : "a"} ${param.type}, got ${typeOf(args[param.name])}`,
      );
  }
  if (problems.length > 0) throw new InvalidRequest(`Invalid args for script '${script.name}': ${problems.join("; ")}`);
}
