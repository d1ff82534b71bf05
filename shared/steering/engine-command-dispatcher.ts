import { isDeepStrictEqual } from "node:util";
import { InvalidEngineCommand, InvalidRequest, UnknownEngineCommand } from "../errors.js";
import type { Process } from "../processes/process.js";
import { shown } from "../yaml/yaml-safety.js";
import {
  BUILT_IN_ENGINE_COMMANDS,
  MAX_ENGINE_COMMAND_BYTES,
  MAX_ENGINE_COMMANDS,
  isVerbShaped,
  splitEngineCommand,
} from "./engine-commands.js";
import type { EngineCommand, EngineCommandContext, EngineCommandHandler } from "./engine-commands.js";
import { EngineCommandRejected } from "./steering-errors.js";

export interface CommandFailure {
  command: string;
  message: string;
}

export interface BestEffortResult {
  process: Process;
  /** One entry per command that could not be parsed or applied; the others still ran. */
  failures: CommandFailure[];
}

/** Error messages and failures quote an entry only this far (a command may be a 64 KB script). */
const QUOTE = 200;

/**
 * The Engine Command Channel (spec §2a): turns `activate:` / `deactivate:` entries into
 * idempotent setters on a Process. Pure — it computes the next Process and the caller writes it
 * (on the lane, inside ProcessStore.update), so a command never performs I/O of its own.
 * Verbs come from a registry of handlers; a later verb is one more `register` call.
 */
export class EngineCommandDispatcher {
  private readonly handlers = new Map<string, EngineCommandHandler>();

  constructor(handlers: readonly EngineCommandHandler[] = BUILT_IN_ENGINE_COMMANDS) {
    for (const handler of handlers) this.register(handler);
  }

  register(handler: EngineCommandHandler): this {
    if (!isVerbShaped(handler.verb)) throw new InvalidRequest(`'${shown(handler.verb)}' is not a valid engine command verb`);
    if (this.handlers.has(handler.verb)) throw new InvalidRequest(`Engine command '${handler.verb}' is registered already`);
    this.handlers.set(handler.verb, handler);
    return this;
  }

  verbs(): string[] {
    return [...this.handlers.keys()];
  }

  /** Validates every entry before any is used; throws on the first bad one. */
  parse(commands: readonly string[], ctx: EngineCommandContext = {}): EngineCommand[] {
    if (commands.length > MAX_ENGINE_COMMANDS) {
      throw new InvalidRequest(`At most ${MAX_ENGINE_COMMANDS} engine commands per sequence${skillSuffix(ctx)}`);
    }
    return commands.map((command) => this.parseOne(command, ctx));
  }

  /**
   * All or nothing: parses the whole sequence first, then applies it in order. Throws on the first
   * bad command and the input Process is never changed. Returns the input object itself when the
   * commands change nothing (e.g. a repeated activation), so a caller can skip the write.
   */
  apply(process: Process, commands: readonly string[], ctx: EngineCommandContext = {}): Process {
    const next = this.parse(commands, ctx).reduce((current, command) => command.apply(current), process);
    return isDeepStrictEqual(next, process) ? process : next;
  }

  /**
   * For `deactivate:` (spec §2a): every step runs even if an earlier one fails, so cleanup after a
   * partial activation still does what it can. A failing step changes nothing and is reported.
   */
  applyBestEffort(process: Process, commands: readonly string[], ctx: EngineCommandContext = {}): BestEffortResult {
    const failures: CommandFailure[] = [];
    let current = process;
    commands.forEach((command, index) => {
      if (index >= MAX_ENGINE_COMMANDS) {
        failures.push({
          command: quote(command),
          message: `At most ${MAX_ENGINE_COMMANDS} engine commands per sequence${skillSuffix(ctx)}`,
        });
        return;
      }
      try {
        current = this.parseOne(command, ctx).apply(current);
      } catch (error) {
        failures.push({ command: quote(command), message: error instanceof Error ? error.message : String(error) });
      }
    });
    return { process: isDeepStrictEqual(current, process) ? process : current, failures };
  }

  private parseOne(command: string, ctx: EngineCommandContext): EngineCommand {
    const skill = ctx.skill?.name;
    if (typeof command !== "string") throw new InvalidEngineCommand("?", skill, "", "an engine command must be a string");
    const quoted = quote(command);
    if (command.length > MAX_ENGINE_COMMAND_BYTES || Buffer.byteLength(command, "utf8") > MAX_ENGINE_COMMAND_BYTES) {
      throw new InvalidEngineCommand(verbOf(command), skill, quoted, `the command is larger than ${MAX_ENGINE_COMMAND_BYTES} bytes`);
    }
    const split = splitEngineCommand(command);
    if (!split) throw new InvalidEngineCommand("?", skill, quoted, "the command is empty");
    const handler = isVerbShaped(split.verb) ? this.handlers.get(split.verb) : undefined;
    if (!handler) throw new UnknownEngineCommand(shown(split.verb, 64), skill, quoted);
    try {
      const bound = handler.bind(split.args, ctx);
      return { verb: handler.verb, text: command, args: bound.args, apply: bound.apply };
    } catch (error) {
      if (error instanceof EngineCommandRejected)
        throw new InvalidEngineCommand(handler.verb, skill, quoted, error.message, { cause: error });
      throw error;
    }
  }
}

const quote = (command: unknown): string => shown(String(command), QUOTE);

const verbOf = (command: string): string => shown(/^\s*(\S{1,64})/.exec(command)?.[1] ?? "?", 64);

const skillSuffix = (ctx: EngineCommandContext): string => (ctx.skill ? ` (skill '${ctx.skill.name}')` : "");
