import type { z } from "zod";
import { InvalidRequest, ToolNotFound } from "../errors.js";
import type { CascadeSources } from "../documents/cascade-layers.js";
import type { LaneUser } from "../lanes/lane-message.js";
import type { Process } from "../processes/process.js";
import { describeZodIssues } from "../http/zod-issues.js";
import { SkillLoader } from "../skills/skill-loader.js";
import type { Turn } from "../turns/turn.js";

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
}

/** A tool the Skills service serves itself; `args` are validated with `schema` before `invoke`. */
export interface ServiceTool<S extends z.ZodType = z.ZodType> {
  name: string;
  schema: S;
  invoke(call: ToolCall<z.output<S>>): Promise<unknown>;
}

export const serviceTool = <S extends z.ZodType>(tool: ServiceTool<S>): ServiceTool<S> => tool;

export interface ToolInvokerDeps {
  sources: CascadeSources;
  /** SkillTurnSupport.preview without a message: the turn the process would get now, writing nothing. */
  preview(process: Process, user: LaneUser | null): Promise<Turn>;
  tools: readonly ServiceTool[];
}

/**
 * API.md `POST …/tools/{toolName}`: invokes a tool the process has now. "Has now" is decided by
 * the same composition a turn uses (engine ∪ recipe ∪ active skills, ON_DEMAND references), so a
 * tool is callable exactly when a turn composed now would advertise it. A tool the process has
 * but the service does not serve (e.g. `web_search`, the engine's own) is TOOL_NOT_FOUND as well.
 * The caller has authorized access to the process.
 */
export class ToolInvoker {
  private readonly tools: ReadonlyMap<string, ServiceTool>;
  private readonly loader: SkillLoader;

  constructor(private readonly deps: ToolInvokerDeps) {
    this.tools = new Map(deps.tools.map((tool) => [tool.name, tool]));
    this.loader = new SkillLoader(deps.sources);
  }

  async invoke(process: Process, user: LaneUser | null, toolName: string, args: unknown): Promise<unknown> {
    const tool = this.tools.get(toolName);
    if (tool === undefined) throw new ToolNotFound(toolName, "the Skills service does not serve this tool");
    const turn = await this.deps.preview(process, user);
    if (!turn.tools.includes(toolName)) throw new ToolNotFound(toolName, `process '${process.processId}' does not have this tool now`);
    const parsed = tool.schema.safeParse(args ?? {});
    if (!parsed.success) throw new InvalidRequest(`Invalid args for tool '${toolName}': ${describeZodIssues(parsed.error)}`);
    return tool.invoke({ process, user, turn, args: parsed.data, sources: this.deps.sources, loader: this.loader });
  }
}
