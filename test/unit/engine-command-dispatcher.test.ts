import { describe, expect, it } from "vitest";
import { BundledDocumentLayer } from "../../shared/documents/bundled-document-layer.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { InvalidEngineCommand, InvalidRequest, UnknownEngineCommand } from "../../shared/errors.js";
import { newProcess } from "../../shared/processes/process.js";
import type { Process } from "../../shared/processes/process.js";
import { EngineCommandDispatcher } from "../../shared/steering/engine-command-dispatcher.js";
import { MAX_ENGINE_COMMAND_BYTES, MAX_ENGINE_COMMANDS, reject, splitEngineCommand } from "../../shared/steering/engine-commands.js";
import type { EngineCommandContext } from "../../shared/steering/engine-commands.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";

const aProcess = (overrides: Partial<Process> = {}): Process =>
  newProcess(
    { tenant: "acme", processId: "p-1", sessionId: "s-1", name: "chat", recipe: "default", engine: "ford", projectId: "web", ...overrides },
    new Date("2025-03-01T10:00:00.000Z"),
  );

const CTX: EngineCommandContext = { skill: { name: "code-guard", location: { source: "PROJECT", project: "web" } } };

const GUARD_SOURCE = [
  'const res = vance.llm.callForJson("completion-guard", "Evaluate the guard condition.", {',
  '  judge: "Has a development task of the user been completed?",',
  "});",
  "if (res && res.fire) {",
  '  vance.guard.continueWith("Was the build run?");',
  "}",
].join("\n");

/** The bundled code-guard entry as YAML's `- |` delivers it: indentation stripped, a trailing newline. */
const INLINE_GUARD = `guard inline\n${GUARD_SOURCE}\n`;

const capture = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
};

describe("splitEngineCommand", () => {
  it("reads the verb and arguments from the first line and hands the following lines to the last argument", () => {
    // Act
    const split = splitEngineCommand("guard   inline  first part\r\n\r\nsecond\n  third\n\n");

    // Assess
    expect(split?.verb).toBe("guard");
    expect(split?.args.split(2)).toEqual(["inline", "first part\nsecond\n  third"]);
    expect(split?.args.all()).toBe("inline  first part\nsecond\n  third");
  });

  it("gives fewer arguments when fewer are written, and nothing for an empty entry", () => {
    // Act
    const clear = splitEngineCommand("guard clear");
    const empty = splitEngineCommand(" \n \n");

    // Assess
    expect(clear?.args.split(2)).toEqual(["clear"]);
    expect(clear?.args.split(1)).toEqual(["clear"]);
    expect(empty).toBeUndefined();
  });
});

describe("EngineCommandDispatcher verbs", () => {
  const dispatcher = new EngineCommandDispatcher();

  it("guard script sets a script guard pinned to the skill's layer", () => {
    // Act
    const next = dispatcher.apply(aProcess(), ["guard script _vance/guards/my-guard.js"], CTX);

    // Assess
    expect(next.guard).toEqual({ type: "script", path: "_vance/guards/my-guard.js", layer: { source: "PROJECT", project: "web" } });
  });

  it("guard script without a skill location leaves the layer open", () => {
    // Act
    const next = dispatcher.apply(aProcess(), ["guard script _vance/guards/my-guard.js"], { skill: { name: "x" } });

    // Assess
    expect(next.guard).toEqual({ type: "script", path: "_vance/guards/my-guard.js" });
  });

  it("guard inline takes every following line as the source (the bundled code-guard form)", () => {
    // Act
    const next = dispatcher.apply(aProcess(), [INLINE_GUARD], CTX);

    // Assess
    expect(next.guard).toEqual({ type: "inline", source: GUARD_SOURCE });
  });

  it("guard inline also accepts a one-line source on the command line", () => {
    // Act
    const next = dispatcher.apply(aProcess(), ["guard inline vance.guard.continueWith('go on')"], CTX);

    // Assess
    expect(next.guard).toEqual({ type: "inline", source: "vance.guard.continueWith('go on')" });
  });

  it("guard clear removes any guard", () => {
    // Prepare
    const guarded = aProcess({ guard: { type: "inline", source: "x" } });

    // Act
    const next = dispatcher.apply(guarded, ["guard clear"], CTX);

    // Assess
    expect(next.guard).toBeNull();
  });

  it("status.set and mode.set set the process's status text and mode; the clear verbs remove them", () => {
    // Act
    const set = dispatcher.apply(aProcess(), ["status.set Reviewing the diff", "mode.set review"], CTX);
    const cleared = dispatcher.apply(set, ["status.clear", "mode.clear"], CTX);

    // Assess
    expect(set).toMatchObject({ statusText: "Reviewing the diff", mode: "review" });
    expect(cleared).toEqual(aProcess());
    expect("statusText" in cleared || "mode" in cleared).toBe(false);
  });

  it("later commands in a sequence win over earlier ones, in order", () => {
    // Act
    const next = dispatcher.apply(aProcess(), ["mode.set a", "guard inline x", "mode.set b", "guard clear"], CTX);

    // Assess
    expect(next).toMatchObject({ mode: "b", guard: null });
  });

  it("never changes the process it is given", () => {
    // Prepare
    const original = aProcess({ guard: { type: "inline", source: "old" } });
    const snapshot = structuredClone(original);

    // Act
    dispatcher.apply(original, ["guard inline new", "status.set busy", "mode.set x"], CTX);

    // Assess
    expect(original).toEqual(snapshot);
  });

  it("parse reports the parsed arguments of each command", () => {
    // Act
    const commands = dispatcher.parse(["guard clear", "status.set  two words ", "mode.set review"], CTX);

    // Assess
    expect(commands.map((c) => [c.verb, c.args])).toEqual([
      ["guard", { guard: null }],
      ["status.set", { statusText: "two words" }],
      ["mode.set", { mode: "review" }],
    ]);
  });
});

describe("EngineCommandDispatcher idempotency", () => {
  const dispatcher = new EngineCommandDispatcher();
  const sequence = [INLINE_GUARD, "status.set Guarding", "mode.set strict"];

  it("applying a sequence twice equals applying it once", () => {
    // Act
    const once = dispatcher.apply(aProcess(), sequence, CTX);
    const twice = dispatcher.apply(once, sequence, CTX);

    // Assess
    expect(twice).toEqual(once);
  });

  it("returns the very same object when the commands change nothing, so a caller can skip the write", () => {
    // Prepare
    const once = dispatcher.apply(aProcess(), sequence, CTX);

    // Act
    const again = dispatcher.apply(once, sequence, CTX);
    const changed = dispatcher.apply(once, ["mode.set other"], CTX);

    // Assess
    expect(again).toBe(once);
    expect(changed).not.toBe(once);
  });

  it("guard clear on a process without a guard changes nothing", () => {
    // Prepare
    const process = aProcess();

    // Act
    const next = dispatcher.apply(process, ["guard clear", "status.clear", "mode.clear"], CTX);

    // Assess
    expect(next).toBe(process);
  });
});

describe("EngineCommandDispatcher errors (all or nothing)", () => {
  const dispatcher = new EngineCommandDispatcher();

  it("fails an unknown verb naming the verb and the skill, and applies none of the valid commands before it", () => {
    // Prepare
    const process = aProcess();
    const snapshot = structuredClone(process);

    // Act
    const error = capture(() => dispatcher.apply(process, ["mode.set review", "guard inline x", "enableGuard now"], CTX));

    // Assess
    expect(error).toBeInstanceOf(UnknownEngineCommand);
    expect(error).toBeInstanceOf(InvalidRequest);
    expect(error).toMatchObject({ code: "INVALID_REQUEST", verb: "enableGuard", skillName: "code-guard" });
    expect((error as Error).message).toBe("Unknown engine command 'enableGuard' in skill 'code-guard'");
    expect(process).toEqual(snapshot);
  });

  it.each([
    ["guard without a subcommand", "guard", "guard", "expects 'script <path>', 'inline <source>' or 'clear'"],
    ["an unknown guard subcommand", "guard enable", "guard", "expects 'script <path>', 'inline <source>' or 'clear', got 'enable'"],
    ["guard script without a path", "guard script", "guard", "'guard script' needs a document path"],
    ["guard script with two paths", "guard script a.js b.js", "guard", "'guard script' takes exactly one document path"],
    [
      "guard script with an escaping path",
      "guard script ../../other/guard.js",
      "guard",
      '\'guard script\' path: Document path "../../other/guard.js" contains a dot segment ".."',
    ],
    [
      "guard inline without source",
      "guard inline\n\n",
      "guard",
      "'guard inline' needs the guard source (on the same line or the lines below)",
    ],
    ["guard clear with arguments", "guard clear now", "guard", "'guard clear' takes no arguments"],
    ["status.set without text", "status.set", "status.set", "needs the status text"],
    ["a multi-line status", "status.set one\ntwo", "status.set", "the status text must be one line"],
    ["a status with control characters", "status.set a\u0007b", "status.set", "the status text must not contain control characters"],
    ["mode.set with two names", "mode.set a b", "mode.set", "takes exactly one mode name"],
    [
      "mode.set with a bad name",
      "mode.set <script>",
      "mode.set",
      "the mode name may only contain letters, digits, '.', '_' and '-' (at most 64)",
    ],
    ["status.clear with arguments", "status.clear now", "status.clear", "takes no arguments"],
  ])("refuses %s with InvalidEngineCommand", (_case, command, verb, reason) => {
    // Act
    const error = capture(() => dispatcher.apply(aProcess(), ["mode.set ok", command], CTX));

    // Assess
    expect(error).toBeInstanceOf(InvalidEngineCommand);
    expect(error).toMatchObject({ code: "INVALID_REQUEST", verb, skillName: "code-guard", reason });
    expect((error as Error).message).toBe(`Engine command '${verb}' in skill 'code-guard': ${reason}`);
  });

  it("refuses an empty entry and an oversized one", () => {
    // Act
    const empty = capture(() => dispatcher.parse(["  "], CTX));
    const huge = capture(() => dispatcher.parse([`guard inline\n${"x".repeat(MAX_ENGINE_COMMAND_BYTES)}`], CTX));

    // Assess
    expect(empty).toMatchObject({ reason: "the command is empty" });
    expect(huge).toMatchObject({ verb: "guard", reason: `the command is larger than ${MAX_ENGINE_COMMAND_BYTES} bytes` });
    // The error quotes a bounded, printable prefix of the entry, not 64 KB of it.
    expect((huge as InvalidEngineCommand).command).toMatch(/^guard inline\\u000axxx+…$/);
    expect((huge as InvalidEngineCommand).command.length).toBeLessThan(220);
  });

  it("refuses more commands than a sequence may hold", () => {
    // Act
    const error = capture(() =>
      dispatcher.parse(
        Array.from({ length: MAX_ENGINE_COMMANDS + 1 }, () => "guard clear"),
        CTX,
      ),
    );

    // Assess
    expect(error).toBeInstanceOf(InvalidRequest);
    expect((error as Error).message).toMatch(`At most ${MAX_ENGINE_COMMANDS} engine commands`);
  });

  it("does not treat inherited object keys as verbs", () => {
    // Act
    const error = capture(() => dispatcher.parse(["constructor x", "__proto__ y"], CTX));

    // Assess
    expect(error).toBeInstanceOf(UnknownEngineCommand);
  });
});

describe("EngineCommandDispatcher best effort (deactivate:)", () => {
  const dispatcher = new EngineCommandDispatcher();

  it("runs every step, reporting the failing ones and keeping the effects of the others", () => {
    // Prepare
    const process = aProcess({ guard: { type: "inline", source: "x" }, mode: "strict", statusText: "Guarding" });

    // Act
    const result = dispatcher.applyBestEffort(process, ["status.clear", "guard explode", "bogus.verb", "guard clear", "mode.clear"], CTX);

    // Assess
    expect(result.process).toEqual(aProcess());
    expect(result.failures).toEqual([
      {
        command: "guard explode",
        message: "Engine command 'guard' in skill 'code-guard': expects 'script <path>', 'inline <source>' or 'clear', got 'explode'",
      },
      { command: "bogus.verb", message: "Unknown engine command 'bogus.verb' in skill 'code-guard'" },
    ]);
  });

  it("reports no failures and the same object when everything is already clean", () => {
    // Prepare
    const process = aProcess();

    // Act
    const result = dispatcher.applyBestEffort(process, ["guard clear"], CTX);

    // Assess
    expect(result).toEqual({ process, failures: [] });
    expect(result.process).toBe(process);
  });
});

describe("EngineCommandDispatcher registry", () => {
  it("accepts further verbs and refuses a second handler for a verb", () => {
    // Prepare
    const dispatcher = new EngineCommandDispatcher();
    dispatcher.register({
      verb: "profile.set",
      bind: (args) => {
        const profile = args.all();
        if (profile === "") reject("needs a profile");
        return { args: { profile }, apply: (p) => ({ ...p, statusText: `profile ${profile}` }) };
      },
    });

    // Act
    const next = dispatcher.apply(aProcess(), ["profile.set fast"], CTX);
    const refused = capture(() => dispatcher.apply(aProcess(), ["profile.set"], CTX));
    const duplicate = capture(() => dispatcher.register({ verb: "guard", bind: () => ({ args: {}, apply: (p) => p }) }));

    // Assess
    expect(next.statusText).toBe("profile fast");
    expect(refused).toMatchObject({ verb: "profile.set", reason: "needs a profile" });
    expect(duplicate).toBeInstanceOf(InvalidRequest);
    expect(dispatcher.verbs()).toEqual(["guard", "status.set", "status.clear", "mode.set", "mode.clear", "profile.set"]);
  });
});

describe("EngineCommandDispatcher with the bundled code-guard skill", () => {
  it("installs its inline guard on activate: and removes it on deactivate:", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const skill = await new SkillLoader({ store, bundled: new BundledDocumentLayer() }).load({ tenantId: "acme" }, "code-guard");
    const dispatcher = new EngineCommandDispatcher();
    const ctx: EngineCommandContext = { skill: { name: "code-guard", location: skill?.location } };

    // Act
    const activated = dispatcher.apply(aProcess(), skill?.activate ?? [], ctx);
    const deactivated = dispatcher.applyBestEffort(activated, skill?.deactivate ?? [], ctx);

    // Assess
    expect(activated.guard).toMatchObject({ type: "inline" });
    const source = activated.guard?.type === "inline" ? activated.guard.source : "";
    expect(source.startsWith("const res = vance.llm.callForJson(")).toBe(true);
    expect(source.endsWith("}")).toBe(true);
    expect(source).toContain('vance.guard.continueWith("Was the build run and the specification updated?");');
    expect(deactivated).toEqual({ process: aProcess(), failures: [] });
  });
});
