import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * `skills <args>` as a user runs it (bin/skills.mjs in a child process) against a running stack.
 * Asynchronous: the stack it talks to answers from the test's own process.
 */
export function runSkillsCli(args: readonly string[], server: { url: string; token: string }): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, "bin/skills.mjs"), ...args], {
      cwd: repoRoot,
      env: { ...process.env, SKILLS_URL: server.url, SKILLS_TOKEN: server.token },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}
