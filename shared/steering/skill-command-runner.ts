import type { Process } from "../processes/process.js";
import type { ResolvedSkill } from "../skills/resolved-skill.js";
import type { EngineCommandContext } from "./engine-commands.js";

/** The part of the EngineCommandDispatcher the runner uses (engine-command-dispatcher.ts); tests may fake it. */
export interface EngineCommandPort {
  apply(process: Process, commands: readonly string[], ctx: EngineCommandContext): Process;
  applyBestEffort(
    process: Process,
    commands: readonly string[],
    ctx: EngineCommandContext,
  ): { process: Process; failures: readonly { command: string; message: string }[] };
}

/**
 * SkillCommandRunner (spec §2a): fires a skill's `activate:` / `deactivate:` sequence through the
 * Engine Command dispatcher. Pure and synchronous, so it runs inside the lane's single store
 * mutation: `activate:` is all-or-nothing (an unknown verb fails the activation, nothing changes);
 * `deactivate:` is best effort (every step runs, failures are reported, never thrown).
 */
export class SkillCommandRunner {
  constructor(private readonly dispatcher: EngineCommandPort) {}

  activate(process: Process, skill: Pick<ResolvedSkill, "name" | "location" | "activate">): Process {
    if (skill.activate.length === 0) return process;
    return this.dispatcher.apply(process, skill.activate, contextOf(skill));
  }

  deactivate(process: Process, skill: Pick<ResolvedSkill, "name" | "location" | "deactivate">): { process: Process; warnings: string[] } {
    if (skill.deactivate.length === 0) return { process, warnings: [] };
    const { process: next, failures } = this.dispatcher.applyBestEffort(process, skill.deactivate, contextOf(skill));
    return {
      process: next,
      warnings: failures.map((f) => `deactivate: of '${skill.name}' step failed: ${f.message}`),
    };
  }
}

const contextOf = (skill: Pick<ResolvedSkill, "name" | "location">): EngineCommandContext => ({
  skill: { name: skill.name, location: { source: skill.location.source, project: skill.location.project } },
});
