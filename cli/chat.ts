import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import type { Interface } from "node:readline";
import { ConflictError, SkillsApiError, SkillsClient } from "../client/index.js";
import type { ActiveSkillRef, Process, SubscriptionFrame } from "../client/index.js";
import { ENV } from "../shared/config/config.js";
import { FootFileSystem } from "../shared/foot/foot-fs.js";
import { footScriptAnswer, parseScriptExecuteFrame } from "../shared/foot/foot-client.js";
import type { LlmConfig } from "../shared/llm/llm-config.js";
import { completeChatLine, missesSkillName } from "./chat-completer.js";
import { CHAT_HELP, parseChatLine } from "./chat-line.js";
import type { ChatLine } from "./chat-line.js";
import { runModelTurn } from "./chat-model.js";
import { SkillNames } from "./chat-skill-names.js";
import { didYouMean } from "./chat-suggest.js";
import { formatScheduled, formatSkillList, formatTurn, parseShow, promptLine } from "./chat-view.js";
import type { ShowPart } from "./chat-view.js";
import { inert } from "./terminal-text.js";

export interface ChatOptions {
  baseUrl: URL;
  webSocketUrl?: string;
  token: string;
  tenant: string;
  projectId: string;
  sessionId: string;
  recipe: string;
  name?: string;
  processId?: string;
  workDir?: string;
  show: ShowPart[];
  /** Set: the real loop (compose → model → tools → complete). Unset: a steering console. */
  llm?: LlmConfig;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
}

/** Output without an answer from the model: the turn is still completed, so oneShot skills end. */
const NO_MODEL_OUTPUT = "";

/**
 * `skills chat`: one process, over the typed client. Steering and turns go over HTTP (waited),
 * the WebSocket subscription brings scheduled turns and FOOT scripts, which run here in the
 * sandbox on a working directory of their own. Resolves with the exit code.
 */
export async function runChat(options: ChatOptions): Promise<number> {
  const client = new SkillsClient({
    baseUrl: options.baseUrl,
    tenant: options.tenant,
    token: options.token,
    ...(options.webSocketUrl ? { webSocketUrl: options.webSocketUrl } : {}),
  });
  const output = options.output ?? process.stdout;
  const process_ = await openProcess(client, options);
  const workDir = resolve(options.workDir ?? join(tmpdir(), "skills-chat", process_.processId));
  mkdirSync(workDir, { recursive: true });
  const fs = new FootFileSystem(workDir);
  const session = new ChatSession(client, options, process_, output);
  session.say(`process ${process_.name} (${process_.processId}) · project ${process_.projectId} · recipe ${process_.recipe}`);
  session.say(`FOOT scripts run locally in ${workDir}`);
  session.say(
    options.llm
      ? `model: ${options.llm.model} at ${options.llm.url}`
      : `no model configured (${ENV.llmUrl}): a steering console; a message composes a turn and shows it`,
  );
  session.say("/help lists the commands; Ctrl-D leaves");
  await session.refreshSkills().catch((error: unknown) => session.say(`cannot list skills: ${messageOf(error)}`));

  const subscription = client.subscribe({ processIds: [process_.processId] });
  const frames = (async () => {
    try {
      for await (const frame of subscription)
        await session.onFrame(frame, (text) => subscription.send(JSON.parse(text) as never), { fs, workDir });
    } catch (error) {
      session.say(`WebSocket: ${messageOf(error)}; steering and turns still work over HTTP`);
    }
  })();
  try {
    return await session.run(options.input ?? process.stdin);
  } finally {
    subscription.close();
    await frames;
  }
}

async function openProcess(client: SkillsClient, options: ChatOptions): Promise<Process> {
  if (options.processId) return client.processes.get(options.processId);
  try {
    return await client.processes.spawn(options.sessionId, {
      recipe: options.recipe,
      projectId: options.projectId,
      ...(options.name ? { name: options.name } : {}),
    });
  } catch (error) {
    // `--name` of a process already in the session: attach to it, as `--process` would.
    if (!(error instanceof ConflictError && error.code === "NAME_TAKEN")) throw error;
    const existing = (await client.processes.list(options.sessionId)).find((p) => p.name === options.name);
    if (!existing) throw error;
    return existing;
  }
}

const messageOf = (error: unknown): string =>
  error instanceof SkillsApiError
    ? `${error.code}: ${error.message.replace(/^\d+ [A-Z_]+: /, "")}`
    : error instanceof Error
      ? error.message
      : String(error);

class ChatSession {
  private readonly names: SkillNames;
  private active: ActiveSkillRef[];
  private show: ShowPart[];
  private rl: Interface | undefined;
  private busy: AbortController | undefined;
  private interruptedOnce = false;

  constructor(
    private readonly client: SkillsClient,
    private readonly options: ChatOptions,
    private readonly process: Process,
    private readonly output: NodeJS.WritableStream,
  ) {
    this.active = process.activeSkills;
    this.show = options.show;
    this.names = new SkillNames(() => client.skills.list({ projectId: process.projectId }));
  }

  /** A line above the prompt, the prompt redrawn below it with what was typed so far. */
  say(text: string): void {
    const rl = this.rl;
    if (rl && this.busy === undefined) {
      this.output.write("\r\x1b[K");
      this.output.write(`${inert(text)}\n`);
      rl.prompt(true);
    } else {
      this.output.write(`${inert(text)}\n`);
    }
  }

  async refreshSkills(): Promise<void> {
    await this.names.refresh();
  }

  /** readline's completer, callback form: a name it does not know reloads the names once, then completes. */
  private complete(line: string, done: (error: null, result: [string[], string]) => void): void {
    const state = () => ({ skills: this.names.skills, active: this.active });
    if (!missesSkillName(line, state())) return done(null, completeChatLine(line, state()));
    void this.names.refreshAfterMiss().then(() => done(null, completeChatLine(line, state())));
  }

  private setActive(active: ActiveSkillRef[]): void {
    this.active = active;
    this.rl?.setPrompt(inert(promptLine(this.process.name, this.active)));
  }

  run(input: NodeJS.ReadableStream): Promise<number> {
    const rl = createInterface({
      input,
      output: this.output,
      terminal: true,
      historySize: 200,
      completer: (line: string, done: (error: null, result: [string[], string]) => void) => this.complete(line, done),
    });
    this.rl = rl;
    rl.setPrompt(inert(promptLine(this.process.name, this.active)));
    rl.prompt();
    return new Promise((resolveExit) => {
      let exitCode = 0;
      rl.on("SIGINT", () => {
        // Ctrl-C stops what runs; on an empty prompt, twice in a row leaves.
        if (this.busy) {
          this.busy.abort();
          return;
        }
        if (rl.line !== "") {
          this.interruptedOnce = false;
          this.output.write("^C\n");
          rl.write(null, { ctrl: true, name: "u" });
          rl.prompt();
          return;
        }
        if (this.interruptedOnce) {
          rl.close();
          return;
        }
        this.interruptedOnce = true;
        this.say("(Ctrl-C again or Ctrl-D to leave)");
      });
      rl.on("line", (line) => {
        this.interruptedOnce = false;
        const parsed = parseChatLine(line);
        if (parsed.kind === "exit") {
          rl.close();
          return;
        }
        rl.pause();
        const controller = new AbortController();
        this.busy = controller;
        this.execute(parsed, controller.signal)
          .catch((error: unknown) =>
            this.output.write(`${controller.signal.aborted ? "interrupted" : `error: ${inert(messageOf(error))}`}\n`),
          )
          .finally(() => {
            this.busy = undefined;
            rl.resume();
            rl.prompt();
          });
      });
      rl.on("close", () => {
        this.output.write(
          inert(`\nbye (process ${this.process.processId} stays; attach again with --process ${this.process.processId})\n`),
        );
        resolveExit(exitCode);
      });
      input.on("error", () => {
        exitCode = 1;
        rl.close();
      });
    });
  }

  private print(lines: string[] | string): void {
    // Every line printed here may hold service text (skill bodies, descriptions, action:, tool names).
    for (const line of Array.isArray(lines) ? lines : [lines]) this.output.write(`${inert(line)}\n`);
  }

  private async execute(line: ChatLine, signal: AbortSignal): Promise<void> {
    const processId = this.process.processId;
    const wait = { signal, onPoll: (p: { attempt: number }) => p.attempt % 5 === 0 && this.print(`  … still queued (${p.attempt} polls)`) };
    switch (line.kind) {
      case "empty":
        return;
      case "help":
        return this.print(CHAT_HELP);
      case "invalid":
        return this.print(line.message);
      case "show": {
        const parsed = parseShow(line.parts);
        if ("error" in parsed) return this.print(parsed.error);
        if (line.parts.length > 0) this.show = parsed.parts;
        return this.print(`a turn shows: ${this.show.length === 0 ? "(only its summary line)" : this.show.join(", ")}`);
      }
      case "list": {
        const [skills, active] = await Promise.all([
          this.client.skills.list({ projectId: this.process.projectId }),
          this.client.skills.active(processId),
        ]);
        this.names.set(skills);
        this.setActive(active);
        return this.print(formatSkillList(skills, active));
      }
      case "activate": {
        const result = await this.client.steering
          .activate(processId, line.name, { ...(line.args === undefined ? {} : { args: line.args }), oneShot: line.once, ...wait })
          .catch(async (error: unknown) => {
            if (!(error instanceof SkillsApiError && error.code === "SKILL_NOT_FOUND")) throw error;
            // A typo, or a skill pushed since the names were read: reload them, then suggest.
            const skills = await this.names.refresh().catch(() => this.names.skills);
            const invocable = skills.filter((s) => s.userInvocable !== false).map((s) => s.name);
            throw new Error(
              `no skill ${line.name} in project ${this.process.projectId}${didYouMean(line.name, invocable) || "; /skill list shows them"}`,
            );
          });
        this.setActive(result.activeSkills);
        this.print(`activated ${line.name}${line.once ? " for one turn" : ""}${result.turnScheduled ? "; a turn is scheduled" : ""}`);
        if (result.spawned) this.print(`spawned ${result.spawned.name} (${result.spawned.processId})`);
        return;
      }
      case "clear": {
        if (line.name === undefined) {
          const result = await this.client.steering.clearAll(processId, wait);
          this.setActive(result.activeSkills);
          return this.print("cleared every skill not held by a locked recipe");
        }
        // The service clears an inactive skill as a no-op success: read the active skills first,
        // so a typo is not reported as "cleared".
        const before = await this.client.skills.active(processId);
        if (!before.some((s) => s.name === line.name)) {
          this.setActive(before);
          const names = before.map((s) => s.name);
          return this.print(
            `${line.name} is not active, nothing cleared${didYouMean(line.name, names) || (names.length === 0 ? "; no skill is active" : `; active: ${names.join(", ")}`)}`,
          );
        }
        const result = await this.client.steering.clear(processId, line.name, wait);
        this.setActive(result.activeSkills);
        return this.print(result.activeSkills.some((s) => s.name === line.name) ? `${line.name} stays active` : `cleared ${line.name}`);
      }
      case "turn":
      case "message":
        return this.turn(line.kind === "message" ? line.text : undefined, signal, wait);
    }
  }

  private async turn(message: string | undefined, signal: AbortSignal, wait: { signal: AbortSignal }): Promise<void> {
    const processId = this.process.processId;
    const turn = await this.client.turns.compose(processId, message === undefined ? {} : { message }, wait);
    this.print(formatTurn(turn, this.show));
    let output = NO_MODEL_OUTPUT;
    if (this.options.llm) {
      output = await runModelTurn(this.options.llm, this.client, processId, turn, { info: (l) => this.print(`  ${l}`), signal });
      this.print(output);
    }
    const completed = await this.client.turns.complete(processId, turn.turnId, { output }, wait);
    this.setActive(completed.activeSkills);
    this.print(`turn completed${this.active.length === 0 ? "" : `; active: ${this.active.map((s) => s.name).join(", ")}`}`);
  }

  async onFrame(frame: SubscriptionFrame, send: (text: string) => void, foot: { fs: FootFileSystem; workDir: string }): Promise<void> {
    switch (frame.type) {
      case "process-turn-scheduled":
        if (frame.processId === this.process.processId) for (const line of formatScheduled(frame)) this.say(line);
        return;
      case "process-skill-script-execute": {
        const execute = parseScriptExecuteFrame(frame);
        if (!execute) return;
        this.say(`» FOOT script ${execute.skillName}/${execute.scriptName} runs in ${foot.workDir}`);
        const answer = await footScriptAnswer(execute, { fs: foot.fs });
        send(answer);
        const parsed = JSON.parse(answer) as { error?: { message: string } };
        this.say(
          parsed.error ? `» FOOT script failed: ${parsed.error.message}` : `» FOOT script ${execute.skillName}/${execute.scriptName} done`,
        );
        return;
      }
      case "connection":
        if (frame.state === "reconnecting")
          this.say(`» connection lost (${frame.closeCode ?? "?"}); reconnecting, attempt ${frame.attempt}…`);
        else if (frame.state === "open" && frame.attempt > 0) this.say("» reconnected");
        return;
      case "error":
        this.say(`» service: ${frame.error.code}: ${frame.error.message}`);
        return;
      default:
        // Results of our own requests are shown from their HTTP answers.
        return;
    }
  }
}
