import { ENV } from "../../shared/config/config.js";
import { CliUsageError, parseCliOptions, USAGE } from "./cli-options.js";
import { ensureConsoleBuilt } from "./console-build.js";
import { consoleLogger } from "./local-logger.js";
import { startLocalStack } from "./local-stack.js";
import type { LocalStack } from "./local-stack.js";

/** `npm start`: the local stack in the foreground until Ctrl-C or SIGTERM. */

function banner(stack: LocalStack): string {
  const { tenant, login, projects, roles } = stack.devIdentity;
  return [
    "",
    "Skills service running locally",
    `  HTTP       ${stack.httpUrl}`,
    `  WebSocket  ${stack.wsUrl}?token=<token>`,
    `  Console    ${stack.httpUrl}/console/#token=${stack.devToken}&project=${encodeURIComponent(projects[0] ?? "demo")}`,
    ...stack.description.map((line) => `  ${line}`),
    "",
    `Dev token (tenant ${tenant}, user ${login}, projects [${projects.join(", ")}], roles [${roles.join(", ")}]):`,
    stack.devToken,
    "",
    "Try:",
    `  export TOKEN=${stack.devToken}`,
    `  curl -H "Authorization: Bearer $TOKEN" '${stack.httpUrl}/brain/${tenant}/skills/effective?projectId=${projects[0] ?? "demo"}'`,
    "",
    "Ctrl-C stops it.",
    "",
  ].join("\n");
}

// The SDK's "node >= 22 from 2027" notice is noise on the Node 20 runtime this project targets.
process.env[ENV.awsSdkNodeVersionWarningDisabled] ??= "true";

async function main(): Promise<number> {
  let options;
  try {
    options = parseCliOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof CliUsageError)) throw error;
    console.error(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    console.log(USAGE);
    return 0;
  }

  try {
    await ensureConsoleBuilt((line) => console.log(line));
  } catch (error) {
    // The API works without the console: say so and go on.
    console.warn(
      `The console did not build (${error instanceof Error ? error.message : String(error)}); /console/ answers 503 until \`npm run build:console\` succeeds.`,
    );
  }

  let stack: LocalStack;
  try {
    stack = await startLocalStack({
      ...(options.port === undefined ? {} : { port: options.port }),
      ...(options.host === undefined ? {} : { host: options.host }),
      ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
      devIdentity: options.devIdentity,
      devTokenTtl: options.devTokenTtl,
      preloadHandlers: !options.lazy,
      accessLog: !options.quiet,
      logger: consoleLogger,
    });
  } catch (error) {
    console.error(`The local stack did not start: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  console.log(banner(stack));
  if (options.host !== undefined && !["127.0.0.1", "localhost", "::1"].includes(options.host)) {
    console.warn(
      `Warning: listening on ${options.host}. The local stack is for one machine: no TLS, a management ` +
        `endpoint that accepts any signature, and (unless ${ENV.jwtSecret} is set) a public dev secret.`,
    );
  }

  return new Promise<number>((resolveExit) => {
    let stopping = false;
    let firstSignalAt = 0;
    const stop = (signal: NodeJS.Signals): void => {
      // npm and tsx relay the terminal's Ctrl-C too: only a deliberate second press forces the exit.
      if (stopping && Date.now() - firstSignalAt < 1000) return;
      if (stopping) {
        console.error(`${signal} again: exiting without a clean shutdown`);
        process.exit(130);
      }
      stopping = true;
      firstSignalAt = Date.now();
      console.log(`\n${signal}: stopping…`);
      stack.close().then(
        () => resolveExit(0),
        (error: unknown) => {
          console.error("Shutdown failed", error);
          resolveExit(1);
        },
      );
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

const exitCode = await main();
process.exitCode = exitCode;
// Everything is closed by now; a handle some library forgot must not keep the terminal waiting.
setTimeout(() => process.exit(exitCode), 1000).unref();
