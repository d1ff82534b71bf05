import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { waitFor } from "./support/wait-for.js";

/**
 * `npm start` is `tsx infra/local/main.ts`: this runs that entry point as a child process on a
 * free port with the real handlers, reads the URLs and the dev token it prints, and stops it
 * with SIGTERM as a terminal's Ctrl-C would. It runs under `node --import tsx` rather than the tsx
 * CLI: the CLI relays a signal to its child and, when the child does not confirm within a few
 * milliseconds (a loaded CI machine), kills itself with it — exit 143 that says nothing about ours.
 */

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

let child: ChildProcess | undefined;

afterAll(() => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
});

describe("npm start (infra/local/main.ts)", () => {
  it("prints the URLs and a working dev token, answers /health, and exits 0 on SIGTERM", async () => {
    // Prepare
    let output = "";
    child = spawn(
      process.execPath,
      ["--import", "tsx", "infra/local/main.ts", "--port", "0", "--quiet", "--tenant", "acme", "--user", "ada", "--projects", "alpha"],
      {
        cwd: repoRoot,
        env: { ...process.env, AWS_ENDPOINT_URL: "", PORT: "", POWERTOOLS_LOG_LEVEL: "ERROR" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child?.once("exit", (code) => resolve(code)));
    await waitFor(() => output.includes("Ctrl-C stops it."), 45_000, `the startup banner; output so far:\n${output}`);
    const httpUrl = /HTTP +(http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    const wsUrl = /WebSocket +(ws:\/\/127\.0\.0\.1:\d+\/ws)/.exec(output)?.[1];
    const token = /Dev token[^\n]*:\n(\S+)/.exec(output)?.[1];

    // Act
    const health = await fetch(`${httpUrl}/health`);
    const listed = await fetch(`${httpUrl}/brain/acme/skills/effective?projectId=alpha`, { headers: { authorization: `Bearer ${token}` } });
    child.kill("SIGTERM");
    const exitCode = await exited;

    // Assess
    expect(wsUrl).toBe(`${httpUrl?.replace("http://", "ws://")}/ws`);
    expect(output).toContain("tenant acme, user ada, projects [alpha], roles [tenant-admin]");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toMatchObject({ skills: expect.any(Array) });
    expect(exitCode).toBe(0);
  });
});
