import type { LayerLocation } from "../documents/cascade-layers.js";
import { validateDocumentPath } from "../documents/document-path.js";
import type { GuardConfig, Process } from "../processes/process.js";
import { EngineCommandRejected } from "./steering-errors.js";

/**
 * The Engine Command language behind `activate:` / `deactivate:` (spec §2a): an entry is
 * `verb rest…`; in a multi-line entry the first line holds the verb and its arguments and the
 * following lines belong to the last argument (`guard inline` + the guard's source below it).
 * Every verb is an idempotent setter on the Process: pure, no I/O, so applying an entry twice
 * equals applying it once, and a `deactivate:` step stands on its own.
 */

/** One entry may carry a whole inline guard; a frontmatter holds at most 32 KB anyway. */
export const MAX_ENGINE_COMMAND_BYTES = 64 * 1024;
export const MAX_ENGINE_COMMANDS = 64;
export const MAX_STATUS_TEXT_LENGTH = 1024;

const VERB = /^[a-z][a-z0-9_-]*(?:\.[a-z][a-z0-9_-]*)*$/;
const MODE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** What a command sequence is applied for: the skill whose `activate:`/`deactivate:` it is. */
export interface EngineCommandContext {
  skill?: {
    name: string;
    /** The layer the skill came from; commands that name documents read them from this layer. */
    location?: LayerLocation | undefined;
  };
}

/** A validated command, ready to apply. */
export interface EngineCommand {
  readonly verb: string;
  /** The entry as written. */
  readonly text: string;
  /** The parsed arguments, for logs and tests. */
  readonly args: Readonly<Record<string, unknown>>;
  /** The idempotent setter: returns a new Process and leaves its input untouched. */
  readonly apply: (process: Process) => Process;
}

export type BoundCommand = Pick<EngineCommand, "args" | "apply">;

/** A verb. Later verbs register another handler with the dispatcher; nothing else changes. */
export interface EngineCommandHandler {
  readonly verb: string;
  /** Validates the arguments (throwing EngineCommandRejected) and binds the setter. Pure. */
  bind(args: EngineCommandArgs, ctx: EngineCommandContext): BoundCommand;
}

/** Refuses a handler's arguments with EngineCommandRejected (steering-errors.ts). */
export const reject = (reason: string): never => {
  throw new EngineCommandRejected(reason);
};

/** The arguments after the verb, read positionally (the shell convention of spec §2b). */
export class EngineCommandArgs {
  constructor(
    /** The first line after the verb, trimmed. */
    private readonly firstLine: string,
    /** The lines after the first one (leading blank lines and trailing whitespace removed), if any. */
    private readonly following: string,
  ) {}

  /** Everything after the verb: the rest of the first line, then the following lines. */
  all(): string {
    return joinLines(this.firstLine, this.following);
  }

  /**
   * `count - 1` whitespace-separated tokens from the first line, then the remainder (rest of the
   * first line plus the following lines) as the last argument. Missing arguments are absent, so
   * the length tells how many were given.
   */
  split(count: number): string[] {
    const out: string[] = [];
    let rest = this.firstLine;
    while (out.length < count - 1 && rest !== "") {
      const match = /^(\S+)\s*/.exec(rest)!;
      out.push(match[1]!);
      rest = rest.slice(match[0].length);
    }
    const last = joinLines(rest, this.following);
    if (last !== "") out.push(last);
    return out;
  }

  /** The entry spans several lines. */
  get multiline(): boolean {
    return this.following !== "";
  }
}

const joinLines = (first: string, following: string): string =>
  first === "" ? following : following === "" ? first : `${first}\n${following}`;

export interface SplitCommand {
  verb: string;
  args: EngineCommandArgs;
}

/** `verb rest…` → verb + arguments; undefined for an empty entry. Size limits are the dispatcher's. */
export function splitEngineCommand(text: string): SplitCommand | undefined {
  const source = text.replace(/\r\n?/g, "\n").replace(/^\s*\n/, "");
  const newline = source.indexOf("\n");
  const firstLine = (newline === -1 ? source : source.slice(0, newline)).trim();
  const following =
    newline === -1
      ? ""
      : source
          .slice(newline + 1)
          .replace(/^(?:[ \t]*\n)+/, "")
          .trimEnd();
  const match = /^(\S+)\s*(.*)$/.exec(firstLine);
  if (!match) return undefined;
  return { verb: match[1]!, args: new EngineCommandArgs(match[2]!, following) };
}

export const isVerbShaped = (verb: string): boolean => verb.length <= 64 && VERB.test(verb);

// ---------------------------------------------------------------------------------------------
// Built-in verbs

const withGuard =
  (guard: GuardConfig | null): BoundCommand["apply"] =>
  (process) => ({ ...process, guard: guard && structuredClone(guard) });

/** `guard script <path>` | `guard inline <source…>` | `guard clear` (shooty; the guard issue runs it). */
export const guardCommand: EngineCommandHandler = {
  verb: "guard",
  bind(args, ctx) {
    const [sub, rest] = args.split(2);
    switch (sub) {
      case "script": {
        if (rest === undefined) return reject("'guard script' needs a document path");
        if (/\s/.test(rest)) return reject("'guard script' takes exactly one document path");
        try {
          validateDocumentPath(rest);
        } catch (error) {
          return reject(`'guard script' path: ${(error as Error).message}`);
        }
        const location = ctx.skill?.location;
        const guard: GuardConfig = {
          type: "script",
          path: rest,
          // Layer-pinned like a skill's reference docs: the script is read where the skill was found.
          ...(location ? { layer: { source: location.source, project: location.project } } : {}),
        };
        return { args: { guard }, apply: withGuard(guard) };
      }
      case "inline": {
        if (rest === undefined || rest.trim() === "")
          return reject("'guard inline' needs the guard source (on the same line or the lines below)");
        const guard: GuardConfig = { type: "inline", source: rest };
        return { args: { guard }, apply: withGuard(guard) };
      }
      case "clear":
        if (rest !== undefined) return reject("'guard clear' takes no arguments");
        return { args: { guard: null }, apply: withGuard(null) };
      default:
        return reject(`expects 'script <path>', 'inline <source>' or 'clear'${sub === undefined ? "" : `, got '${sub.slice(0, 40)}'`}`);
    }
  },
};

export const statusSetCommand: EngineCommandHandler = {
  verb: "status.set",
  bind(args) {
    const text = args.all();
    if (text === "") return reject("needs the status text");
    if (args.multiline) return reject("the status text must be one line");
    if (text.length > MAX_STATUS_TEXT_LENGTH) return reject(`the status text is longer than ${MAX_STATUS_TEXT_LENGTH} characters`);
    if (CONTROL.test(text)) return reject("the status text must not contain control characters");
    return { args: { statusText: text }, apply: (process) => ({ ...process, statusText: text }) };
  },
};

export const statusClearCommand: EngineCommandHandler = {
  verb: "status.clear",
  bind(args) {
    if (args.all() !== "") return reject("takes no arguments");
    return {
      args: {},
      apply: ({ statusText: _removed, ...process }) => process,
    };
  },
};

export const modeSetCommand: EngineCommandHandler = {
  verb: "mode.set",
  bind(args) {
    const parts = args.split(2);
    const mode = parts[0];
    if (mode === undefined) return reject("needs a mode name");
    if (parts.length > 1 || args.multiline) return reject("takes exactly one mode name");
    if (!MODE.test(mode)) return reject("the mode name may only contain letters, digits, '.', '_' and '-' (at most 64)");
    return { args: { mode }, apply: (process) => ({ ...process, mode }) };
  },
};

export const modeClearCommand: EngineCommandHandler = {
  verb: "mode.clear",
  bind(args) {
    if (args.all() !== "") return reject("takes no arguments");
    return {
      args: {},
      apply: ({ mode: _removed, ...process }) => process,
    };
  },
};

export const BUILT_IN_ENGINE_COMMANDS: readonly EngineCommandHandler[] = [
  guardCommand,
  statusSetCommand,
  statusClearCommand,
  modeSetCommand,
  modeClearCommand,
];
