import { describe, expect, it } from "vitest";
import type { LevelVersion } from "../../shared/catalogue/catalogue-versions.js";
import type { ProcessVersionsReader, ProcessWithVersions } from "../../shared/catalogue/process-versions-reader.js";
import { newProcess, type Process } from "../../shared/processes/process.js";
import { WarmTurnStates } from "../../shared/turns/turn-state.js";
import { primedVersionsOf } from "../../shared/catalogue/primed-versions.js";
import { scopeOf } from "../../shared/steering/steer-context.js";

const aProcess = (processId: string, projectId: string): Process =>
  newProcess({ tenant: "acme", processId, sessionId: "s-1", name: "chat", recipe: "default", engine: "ford", projectId, userId: "bob" });

/** Answers from a fixed set of processes and records which levels each read asked for. */
class RecordingReader implements ProcessVersionsReader {
  readonly asked: string[][] = [];
  constructor(private readonly processes: readonly Process[]) {}
  read(tenant: string, processId: string, projects: readonly string[]): Promise<ProcessWithVersions> {
    this.asked.push([processId, ...projects]);
    const process = this.processes.find((p) => p.tenant === tenant && p.processId === processId);
    return Promise.resolve({
      process,
      versions: new Map<string, LevelVersion>([["web", { version: this.asked.length, changedAt: null }]]),
    });
  }
}

describe("WarmTurnStates", () => {
  it("asks the combined read for the levels the process had when last seen", async () => {
    // Prepare
    const reader = new RecordingReader([aProcess("p-1", "web")]);
    const states = new WarmTurnStates(reader);

    // Act
    const first = await states.load("acme", "p-1");
    await states.load("acme", "p-1");
    const unknown = await states.load("acme", "p-404");

    // Assess
    expect(first?.process.processId).toBe("p-1");
    expect(unknown).toBeUndefined();
    expect(reader.asked).toEqual([["p-1"], ["p-1", "_user_bob", "web", "_tenant"], ["p-404"]]);
  });

  it("forgets the least recently loaded process beyond maxProcesses", async () => {
    // Prepare
    const reader = new RecordingReader([aProcess("p-1", "web"), aProcess("p-2", "api"), aProcess("p-3", "docs")]);
    const states = new WarmTurnStates(reader, { maxProcesses: 2 });
    await states.load("acme", "p-1");
    await states.load("acme", "p-2");
    await states.load("acme", "p-1"); // p-2 is now the least recently loaded

    // Act
    await states.load("acme", "p-3");
    await states.load("acme", "p-2");

    // Assess
    expect(reader.asked.slice(-2)).toEqual([["p-3"], ["p-2"]]);
    expect(reader.asked[2]).toEqual(["p-1", "_user_bob", "web", "_tenant"]);
  });

  it("hands the versions read along to the scopes of that process object only", async () => {
    // Prepare: an in-memory store hands out the same object on every read.
    const stored = aProcess("p-1", "web");
    const states = new WarmTurnStates(new RecordingReader([stored]));

    // Act
    const first = await states.load("acme", "p-1");
    const second = await states.load("acme", "p-1");
    const firstScope = first && primedVersionsOf(scopeOf(first.process));
    const secondScope = second && primedVersionsOf(scopeOf(second.process));

    // Assess
    expect(first?.process).toEqual(stored);
    expect(firstScope?.get("web")?.version).toBe(1);
    expect(secondScope?.get("web")?.version).toBe(2);
    // Neither the store's object nor a state a write derives from the turn's carries them into later requests.
    expect(primedVersionsOf(scopeOf(stored))).toBeUndefined();
    const derived: Process | undefined = first && { ...first.process, activeSkills: [] };
    expect(derived && primedVersionsOf(scopeOf(derived))).toBeUndefined();
  });
});
