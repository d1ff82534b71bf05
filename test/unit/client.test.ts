import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { RateLimitedError, SkillsClient, SkillsConnectionError } from "../../client/index.js";

/** The typed client's own rules, with a scripted fetch: retries, polling back-off, browser bundling. */

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

function scripted(answers: Response[]): { fetch: typeof fetch; calls: { url: string; init: RequestInit }[] } {
  const calls: { url: string; init: RequestInit }[] = [];
  return {
    calls,
    fetch: (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      const next = answers.shift();
      if (!next) throw new Error("no more answers");
      return next;
    }) as typeof fetch,
  };
}

describe("SkillsClient", () => {
  it("retries a 429 after its Retry-After, then answers", async () => {
    // Prepare
    const slept: number[] = [];
    const { fetch, calls } = scripted([
      json(429, { error: { code: "TOO_MANY_REQUESTS", message: "slow down" } }, { "retry-after": "1" }),
      json(200, { skills: [] }),
    ]);
    const client = new SkillsClient({ baseUrl: "http://svc", tenant: "acme", token: "t", fetch, sleep: async (ms) => void slept.push(ms) });

    // Act
    const skills = await client.skills.list({ projectId: "p" });

    // Assess
    expect(skills).toEqual([]);
    expect(slept).toEqual([1000]);
    expect(calls.map((c) => c.url)).toEqual([
      "http://svc/brain/acme/skills/effective?projectId=p",
      "http://svc/brain/acme/skills/effective?projectId=p",
    ]);
    expect(calls[0]?.init.headers).toMatchObject({ authorization: "Bearer t" });
  });

  it("throws RateLimitedError with the code once the attempts are spent", async () => {
    // Prepare
    const limited = () => json(429, { error: { code: "TOO_MANY_REQUESTS", message: "slow down" } }, { "retry-after": "0" });
    const { fetch } = scripted([limited(), limited()]);
    const client = new SkillsClient({
      baseUrl: "http://svc",
      tenant: "acme",
      fetch,
      retry: { maxAttempts: 2 },
      sleep: async () => undefined,
    });

    // Act
    const error = await client.skills.list().catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ status: 429, code: "TOO_MANY_REQUESTS", retryAfterSeconds: 0 });
  });

  it("polls a QUEUED lane request with a doubling pause capped at maxPollIntervalMs", async () => {
    // Prepare
    const slept: number[] = [];
    const queued = () => json(200, { requestId: "r1", status: "QUEUED" });
    const { fetch, calls } = scripted([
      json(202, { requestId: "r1", status: "QUEUED" }),
      queued(),
      queued(),
      queued(),
      json(200, { requestId: "r1", status: "DONE", result: { activeSkills: [] } }),
    ]);
    const client = new SkillsClient({ baseUrl: "http://svc", tenant: "acme", fetch, sleep: async (ms) => void slept.push(ms) });

    // Act
    const result = await client.steering.clearAll("p1", { pollIntervalMs: 100, maxPollIntervalMs: 300 });

    // Assess
    expect(result).toEqual({ activeSkills: [] });
    expect(slept).toEqual([100, 200, 300, 300]);
    expect(calls[0]?.init.headers).toMatchObject({ prefer: "wait=10" });
    expect(calls.slice(1).map((c) => c.url)).toEqual(Array(4).fill("http://svc/brain/acme/processes/p1/requests/r1"));
  });

  it("names the service when it cannot be reached", async () => {
    // Prepare
    const client = new SkillsClient({
      baseUrl: "http://svc",
      tenant: "acme",
      fetch: (async () => Promise.reject(new TypeError("fetch failed"))) as typeof fetch,
    });

    // Act
    const error = await client.health().catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(SkillsConnectionError);
    expect((error as Error).message).toContain("cannot reach http://svc");
  });

  it("bundles for the browser without Node built-ins or the ws package", async () => {
    // Act
    const result = await build({
      entryPoints: ["client/index.ts"],
      bundle: true,
      platform: "browser",
      format: "esm",
      write: false,
      logLevel: "silent",
    });
    const code = result.outputFiles[0]?.text ?? "";

    // Assess
    expect(result.errors).toEqual([]);
    expect(code).not.toMatch(/from\s+["'](node:|ws["'])/);
    expect(code).toMatch(/SkillsClient/);
  });
});
