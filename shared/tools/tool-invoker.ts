import type * as z from "zod/mini";
import { InvalidRequest, ToolNotFound } from "../errors.js";
import type { CascadeSources } from "../documents/cascade-layers.js";
import type { LaneUser } from "../lanes/lane-message.js";
import type { Process } from "../processes/process.js";
import { describeZodIssues } from "../http/zod-issues.js";
import type { ScriptLogEntry } from "../sandbox/script-errors.js";
import { looksLikeScriptTool } from "../scripts/script-tool-name.js";
import { checkScriptArgs } from "../scripts/script-tool-schema.js";
import { findScriptTool } from "../scripts/script-tools.js";
import { SkillScriptRunner } from "../scripts/skill-script-runner.js";
import type { ScriptToolRunner } from "../scripts/skill-script-runner.js";
import { WorkspaceBudget } from "../scripts/script-workspace.js";
import type { ResolvedSkill } from "../skills/resolved-skill.js";
import { SkillLoader } from "../skills/skill-loader.js";
import { scopeOf } from "../steering/steer-context.js";
import type { Turn } from "../turns/turn.js";
import type { ModelActivation } from "./model-activation.js";

/** What a tool sees of one call: the process as it is now and the turn it would get now. */
export interface ToolCall<A> {
  process: Process;
  user: LaneUser | null;
  /** The preview turn: its `tools` decided that the process has this tool, its `manualPaths` bound the manual tools. */
  turn: Turn;
  args: A;
  sources: CascadeSources;
  /** Reads skill files from the layer that provided the skill (layer pinning). */
  loader: SkillLoader;
  /** skill_activate's way onto the process lane; absent where the function does not wire it. */
  activation?: ModelActivation | undefined;
}

/** A tool the Skills service serves itself; `args` are validated with `schema` before `invoke`. */
export interface ServiceTool<S extends z.ZodMiniType = z.ZodMiniType> {
  name: string;
  schema: S;
  invoke(call: ToolCall<z.output<S>>): Promise<unknown>;
}

export const serviceTool = <S extends z.ZodMiniType>(tool: ServiceTool<S>): ServiceTool<S> => tool;

/** API.md `{"result": …}`; script tools add their `vance.log` trace. */
interface ToolResult {
  result: unknown;
  logs?: ScriptLogEntry[];
  /** Log entries beyond the cap, counted but not kept. */
  droppedLogs?: number;
}

interface ToolInvokerDeps {
  sources: CascadeSources;
  /** SkillTurnSupport.preview without a message: the turn the process would get now, writing nothing. */
  preview(process: Process, user: LaneUser | null): Promise<Turn>;
  tools: readonly ServiceTool[];
  /** Runs skill script tools. Default: BRAIN scripts on the default sandbox pool, no FOOT routing. */
  scripts?: ScriptToolRunner;
  /** Enqueues and waits for the model's ACTIVATE (skill_activate). */
  activation?: ModelActivation;
}

/** A script tool's args travel into a sandbox (and a FOOT frame): bounded like a request body. */
const MAX_SCRIPT_ARGS_BYTES = 64 * 1024;

/** State one HTTP invocation shares with the tools its scripts call (`vance.tool`). */
interface InvocationScope {
  depth: number;
  signal?: AbortSignal | undefined;
  turn?: Turn;
  skills?: ResolvedSkill[];
  budget: WorkspaceBudget;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;

/**
 * API.md `POST …/tools/{toolName}`: invokes a tool the process has now. "Has now" is decided by
 * the same composition a turn uses (engine ∪ recipe ∪ active skills, ON_DEMAND references, the
 * active skills' script tools), so a tool is callable exactly when a turn composed now would
 * advertise it. A tool the process has but the service does not serve (e.g. `web_search`, the
 * engine's own) is TOOL_NOT_FOUND as well. The caller has authorized access to the process.
 *
 * Scripts may call tools themselves (`vance.tool`): such a nested call is checked against the
 * same turn, one level deeper, and shares the invocation's workspace budget.
 */
export class ToolInvoker {
  private readonly tools: ReadonlyMap<string, ServiceTool>;
  private readonly loader: SkillLoader;
  private readonly scripts: ScriptToolRunner;

  constructor(private readonly deps: ToolInvokerDeps) {
    this.tools = new Map(deps.tools.map((tool) => [tool.name, tool]));
    this.loader = new SkillLoader(deps.sources);
    this.scripts = deps.scripts ?? new SkillScriptRunner({ loader: this.loader, documents: deps.sources.store });
  }

  /** Whether a tool of this name is one the service runs (a service tool or a skill script), had the process it now. */
  serves(toolName: string): boolean {
    return this.tools.has(toolName) || looksLikeScriptTool(toolName);
  }

  async invoke(process: Process, user: LaneUser | null, toolName: string, args: unknown): Promise<ToolResult> {
    return this.invokeIn({ depth: 0, budget: new WorkspaceBudget() }, process, user, toolName, args);
  }

  private async invokeIn(
    scope: InvocationScope,
    process: Process,
    user: LaneUser | null,
    toolName: string,
    args: unknown,
  ): Promise<ToolResult> {
    const service = this.tools.get(toolName);
    if (service === undefined && !looksLikeScriptTool(toolName))
      throw new ToolNotFound(toolName, "the Skills service does not serve this tool");
    scope.turn ??= await this.deps.preview(process, user);
    const turn = scope.turn;
    if (!turn.tools.includes(toolName)) throw new ToolNotFound(toolName, `process '${process.processId}' does not have this tool now`);

    if (service !== undefined) {
      const parsed = service.schema.safeParse(args ?? {});
      if (!parsed.success) throw new InvalidRequest(`Invalid args for tool '${toolName}': ${describeZodIssues(parsed.error)}`);
      return {
        result: await service.invoke({
          process,
          user,
          turn,
          args: parsed.data,
          sources: this.deps.sources,
          loader: this.loader,
          activation: this.deps.activation,
        }),
      };
    }

    scope.skills ??= await this.activeSkills(process);
    const tool = findScriptTool(scope.skills, toolName);
    if (tool === undefined) throw new ToolNotFound(toolName, "the Skills service does not serve this tool");
    const scriptArgs = args ?? {};
    if (!isPlainObject(scriptArgs)) throw new InvalidRequest(`Invalid args for tool '${toolName}': must be an object`);
    if (Buffer.byteLength(JSON.stringify(scriptArgs), "utf8") > MAX_SCRIPT_ARGS_BYTES) {
      throw new InvalidRequest(`Invalid args for tool '${toolName}': larger than ${MAX_SCRIPT_ARGS_BYTES} bytes`);
    }
    checkScriptArgs(tool.script, scriptArgs);
    const outcome = await this.scripts.run({
      process,
      user,
      tool,
      args: scriptArgs,
      depth: scope.depth,
      signal: scope.signal,
      budget: scope.budget,
      callTool: async (name, params, call) => {
        const nested: InvocationScope = { ...scope, depth: call.depth + 1, signal: call.signal };
        return (await this.invokeIn(nested, process, user, name, params)).result;
      },
    });
    return { result: outcome.result, logs: outcome.logs, ...(outcome.droppedLogs ? { droppedLogs: outcome.droppedLogs } : {}) };
  }

  /** The active skills' current definitions, as the preview turn resolved them (shot ones contribute nothing). */
  private async activeSkills(process: Process): Promise<ResolvedSkill[]> {
    const scope = scopeOf(process);
    const skills = await Promise.all(process.activeSkills.map((entry) => this.loader.load(scope, entry.name)));
    return skills.filter((skill): skill is ResolvedSkill => skill !== undefined && skill.lifecycle !== "shot");
  }
}
