import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { waitFor } from "./support/wait-for.js";

/**
 * `--data DIR` after `kill -9`: what the stack acknowledged (a 200'd document PUT, a 202'd lane
 * request) is on disk before the answer left, so a restarted stack on the same directory has the
 * document and settles the request. The stack runs as a child process (support/crash-child.ts)
 * so SIGKILL is a real crash: no shutdown hook, no flush.
 */

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const children: ChildProcess[] = [];
const dataDirs: string[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

interface Running {
  child: ChildProcess;
  httpUrl: string;
  token: string;
  exited: Promise<unknown>;
}

async function startChild(dataDir: string, stallLane: boolean): Promise<Running> {
  let output = "";
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "test/e2e/support/crash-child.ts", "--data", dataDir, ...(stallLane ? ["--stall-lane"] : [])],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        AWS_ENDPOINT_URL: "",
        PORT: "",
        POWERTOOLS_LOG_LEVEL: "ERROR",
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(child);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const line = await waitFor(() => /^\{"httpUrl".*\}$/m.exec(output)?.[0], 60_000, `the child's ready line; output so far:\n${output}`);
  const { httpUrl, token } = JSON.parse(line) as { httpUrl: string; token: string };
  return { child, httpUrl, token, exited };
}

const call = (stack: Running, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${stack.httpUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${stack.token}`, ...headers },
    ...(body === undefined ? {} : { body }),
  });

describe("local stack --data after kill -9", () => {
  it("keeps a 200'd document and settles a 202'd lane request after a restart", async () => {
    // Prepare
    const dataDir = await mkdtemp(join(tmpdir(), "skills-crash-"));
    dataDirs.push(dataDir);
    const first = await startChild(dataDir, true);
    const put = await call(first, "PUT", "/brain/acme/projects/alpha/documents/notes/crash.md", "# kept\n", {
      "content-type": "text/markdown",
    });
    const spawned = await call(
      first,
      "POST",
      "/brain/acme/sessions/s-crash/processes",
      JSON.stringify({ recipe: "default", projectId: "alpha" }),
      { "content-type": "application/json" },
    );
    const { processId } = (await spawned.json()) as { processId: string };
    const queued = await call(
      first,
      "POST",
      `/brain/acme/processes/${processId}/skill`,
      JSON.stringify({ command: "ACTIVATE", skillName: "code-review", requestId: "r-crash-1" }),
      {
        "content-type": "application/json",
      },
    );

    // Act
    first.child.kill("SIGKILL");
    await first.exited;
    const second = await startChild(dataDir, false);
    const document = await call(second, "GET", "/brain/acme/projects/alpha/documents/notes/crash.md");
    const documentBody = await document.text();
    const settled = await waitFor(
      async () => {
        const answer = (await (await call(second, "GET", `/brain/acme/processes/${processId}/requests/r-crash-1`)).json()) as {
          status?: string;
        };
        return answer.status !== "QUEUED" && answer;
      },
      30_000,
      "the request to leave QUEUED",
    );
    const process = (await (await call(second, "GET", `/brain/acme/processes/${processId}`)).json()) as {
      activeSkills?: { name: string }[];
    };
    second.child.kill("SIGTERM");
    await second.exited;

    // Assess
    expect(put.status).toBe(200);
    expect(spawned.status).toBe(201);
    expect(queued.status).toBe(202);
    expect(first.child.signalCode).toBe("SIGKILL");
    expect(document.status).toBe(200);
    expect(documentBody).toBe("# kept\n");
    expect(settled).toMatchObject({ requestId: "r-crash-1", status: "DONE" });
    expect(process.activeSkills?.map((skill) => skill.name)).toContain("code-review");
  }, 180_000);
});
