import { DocumentNotFound, InvalidRequest } from "../errors.js";
import type { DocumentStore } from "../documents/document-store.js";
import type { FootPort } from "./foot-port.js";
import type { LaneUser } from "../lanes/lane-message.js";
import type { Process } from "../processes/process.js";
import type { HostCallContext, HostFunction } from "../sandbox/host-call.js";
import type { SandboxPool } from "../sandbox/sandbox-pool.js";
import { ScriptDepthExceeded } from "../sandbox/script-errors.js";
import type { ScriptLogEntry } from "../sandbox/script-errors.js";
import { DEFAULT_MAX_SCRIPT_DEPTH, runScript } from "../sandbox/script-runtime.js";
import type { ScriptLimits } from "../sandbox/script-runtime.js";
import type { ResolvedSkill } from "../skills/resolved-skill.js";
import type { SkillLoader } from "../skills/skill-loader.js";
import { scopeOf } from "../steering/steer-context.js";
import { scriptContext } from "./script-context.js";
import type { ScriptTool } from "./script-tools.js";
import { ScriptWorkspace } from "./script-workspace.js";
import type { WorkspaceBudget } from "./script-workspace.js";
import type { Logger } from "../support/logger.js";

/** The tool result when a FOOT script has no client to run on (spec §13.5). */
export const FOOT_NOT_AVAILABLE = "ERROR: foot routing not available";

/** A script file is source code that travels into a sandbox (and for FOOT into one WebSocket frame). */
const MAX_SCRIPT_SOURCE_BYTES = 256 * 1024;

/**
 * Defaults of a BRAIN script run: within the tools function's 15 s, and a result fit for a
 * prompt. A host call's arguments may carry one full workspace write (1 MiB) plus its path, so
 * the workspace quota, not the bridge, is what a script runs into.
 */
const DEFAULT_SCRIPT_LIMITS: ScriptLimits = {
  timeoutMs: 10_000,
  memoryBytes: 32 * 1024 * 1024,
  maxResultBytes: 1024 * 1024,
  maxHostArgsBytes: 1024 * 1024 + 64 * 1024,
};

/** One call of a script tool. */
export interface ScriptInvocation {
  process: Process;
  user: LaneUser | null;
  tool: ScriptTool;
  args: Record<string, unknown>;
  /** How many scripts enclose this call (0: called over HTTP). */
  depth: number;
  signal?: AbortSignal | undefined;
  budget: WorkspaceBudget;
  /** `vance.tool`: another tool the process has now, called one level deeper. */
  callTool(name: string, params: unknown, call: HostCallContext): Promise<unknown>;
}

/** The tool's answer: the script's value plus its `vance.log` trace. */
export interface ScriptToolResult {
  result: unknown;
  logs: ScriptLogEntry[];
  droppedLogs?: number;
}

export interface ScriptToolRunner {
  run(invocation: ScriptInvocation): Promise<ScriptToolResult>;
}

interface SkillScriptRunnerDeps {
  /** Reads script files from the layer that provided the skill (layer pinning, spec §13.1). */
  loader: Pick<SkillLoader, "readSkillFile">;
  /** The project workspace (`vance.workspace`). */
  documents: DocumentStore;
  /** Without it every FOOT script answers FOOT_NOT_AVAILABLE. */
  foot?: FootPort | undefined;
  pool?: SandboxPool | undefined;
  limits?: ScriptLimits | undefined;
  /** Re-entrancy limit of `vance.tool` (default 3). */
  maxDepth?: number | undefined;
  logger?: Pick<Logger, "info"> | undefined;
}

/**
 * Runs a skill's script as a tool (spec §13.2–§13.5): the file is read from the skill's own
 * layer; BRAIN scripts run in a fresh sandbox context with `args`, `vance.tool`,
 * `vance.workspace.*`, `vance.context()` and `vance.log`; FOOT scripts go to a subscribed
 * client through the FootPort. Failures surface as the sandbox's typed ScriptFailures.
 */
export class SkillScriptRunner implements ScriptToolRunner {
  private readonly limits: ScriptLimits;
  private readonly maxDepth: number;

  constructor(private readonly deps: SkillScriptRunnerDeps) {
    this.limits = { ...DEFAULT_SCRIPT_LIMITS, ...deps.limits };
    this.maxDepth = deps.maxDepth ?? DEFAULT_MAX_SCRIPT_DEPTH;
  }

  async run(invocation: ScriptInvocation): Promise<ScriptToolResult> {
    if (invocation.depth > this.maxDepth) throw new ScriptDepthExceeded(this.maxDepth);
    const source = await this.source(invocation.process, invocation.tool.skill, invocation.tool.script.file);
    return invocation.tool.script.target === "FOOT" ? this.runOnFoot(invocation, source) : this.runOnBrain(invocation, source);
  }

  private async source(process: Process, skill: ResolvedSkill, file: string): Promise<string> {
    const source = await this.deps.loader.readSkillFile(scopeOf(process), skill, file);
    if (source === undefined) throw new DocumentNotFound(`${skill.location.directory}/${file}`);
    if (Buffer.byteLength(source, "utf8") > MAX_SCRIPT_SOURCE_BYTES) {
      throw new InvalidRequest(`Script '${file}' of skill '${skill.name}' is larger than ${MAX_SCRIPT_SOURCE_BYTES} bytes`);
    }
    return source;
  }

  private async runOnBrain(invocation: ScriptInvocation, source: string): Promise<ScriptToolResult> {
    const { process, user, tool, depth } = invocation;
    const workspace = new ScriptWorkspace(this.deps.documents, process.tenant, process.projectId, invocation.budget);
    const toolBinding: HostFunction = ([name, params], call) => {
      if (typeof name !== "string" || name === "") throw new InvalidRequest("vance.tool: the tool name must be a non-empty string");
      return invocation.callTool(name, params, call);
    };
    const logger = this.deps.logger;
    const run = await runScript({
      source,
      args: invocation.args,
      bindings: {
        tool: toolBinding,
        workspace: workspace.bindings(),
        context: () => scriptContext(process, user, tool, depth),
      },
      limits: this.limits,
      depth,
      maxDepth: this.maxDepth,
      signal: invocation.signal,
      pool: this.deps.pool,
      tenant: process.tenant,
      onLog: logger
        ? (entry) =>
            logger.info("skill script log", {
              processId: process.processId,
              skill: tool.skill.name,
              script: tool.script.name,
              scriptLevel: entry.level,
              scriptMessage: entry.message,
            })
        : undefined,
    });
    return { result: run.result ?? null, logs: run.logs, ...(run.droppedLogs > 0 ? { droppedLogs: run.droppedLogs } : {}) };
  }

  private async runOnFoot(invocation: ScriptInvocation, source: string): Promise<ScriptToolResult> {
    const { process, tool } = invocation;
    if (!this.deps.foot) return { result: FOOT_NOT_AVAILABLE, logs: [] };
    const outcome = await this.deps.foot.execute({
      tenant: process.tenant,
      processId: process.processId,
      owner: process.userId,
      skillName: tool.skill.name,
      scriptName: tool.script.name,
      args: invocation.args,
      source,
      signal: invocation.signal,
    });
    if (!outcome.routed) return { result: FOOT_NOT_AVAILABLE, logs: [] };
    return { result: outcome.result, logs: outcome.logs };
  }
}
