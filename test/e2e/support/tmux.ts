import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * A real terminal for an interactive command: a detached tmux session, keys sent with
 * `send-keys`, the screen read with `capture-pane`. The command sees a TTY, so readline's
 * completion, prompt and Ctrl-C / Ctrl-D behave as they do for a user.
 */
export class TmuxTerminal {
  private constructor(readonly name: string) {}

  static async start(name: string, command: string, env: Record<string, string>, size = { width: 200, height: 80 }): Promise<TmuxTerminal> {
    const envArgs = Object.entries(env).flatMap(([key, value]) => ["-e", `${key}=${value}`]);
    await run("tmux", ["new-session", "-d", "-s", name, "-x", String(size.width), "-y", String(size.height), ...envArgs, command]);
    return new TmuxTerminal(name);
  }

  /** Literal text (no key names), then optionally named keys such as Tab, Enter, C-c, C-d. */
  async type(text: string, ...keys: string[]): Promise<void> {
    if (text !== "") await run("tmux", ["send-keys", "-t", this.name, "-l", text]);
    if (keys.length > 0) await run("tmux", ["send-keys", "-t", this.name, ...keys]);
  }

  async keys(...keys: string[]): Promise<void> {
    await run("tmux", ["send-keys", "-t", this.name, ...keys]);
  }

  /** The screen and its scrollback, wrapped lines joined, trailing blanks cut (tmux keeps some, not others). */
  async screen(): Promise<string> {
    const { stdout } = await run("tmux", ["capture-pane", "-p", "-J", "-S", "-2000", "-t", this.name]);
    return stdout.replace(/[ \t]+$/gm, "");
  }

  /** Waits until the screen matches (from `after` characters on, to skip earlier output); returns the screen. */
  async waitFor(pattern: RegExp | string, options: { timeoutMs?: number; after?: number } = {}): Promise<string> {
    const deadline = Date.now() + (options.timeoutMs ?? 15_000);
    for (;;) {
      const screen = await this.screen();
      const tail = screen.slice(options.after ?? 0);
      if (typeof pattern === "string" ? tail.includes(pattern) : pattern.test(tail)) return screen;
      if (Date.now() > deadline) throw new Error(`tmux ${this.name}: ${String(pattern)} did not appear; the screen:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async kill(): Promise<void> {
    await run("tmux", ["kill-session", "-t", this.name]).catch(() => undefined);
  }
}
