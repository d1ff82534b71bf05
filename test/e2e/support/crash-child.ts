import { startLocalStack } from "../../../infra/local/local-stack.js";

/**
 * A local stack in a child process, for crash tests: `--data DIR`, real handlers, and with
 * `--stall-lane` a lane worker that never answers, so a 202'd request is still in the lane
 * (received, not deleted) when the test kills this process with SIGKILL. Prints one JSON line
 * `{"httpUrl","token"}` once ready.
 */
const args = process.argv.slice(2);
const dataDir = args[args.indexOf("--data") + 1] ?? "";
const stall = args.includes("--stall-lane");

const stack = await startLocalStack({
  port: 0,
  dataDir,
  logger: { info: () => undefined, warn: () => undefined, error: (message, detail) => console.error(message, detail ?? "") },
  lane: { waitTimeSeconds: 0 },
  ...(stall ? { handlers: { "lane-worker": () => new Promise<never>(() => undefined) } } : {}),
});
const token = await stack.token({ tenant: "acme", login: "ada", projects: ["alpha"], roles: ["project-admin:alpha"] }, { ttl: "1h" });
console.log(JSON.stringify({ httpUrl: stack.httpUrl, token }));
