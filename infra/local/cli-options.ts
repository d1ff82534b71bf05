import { parseArgs } from "node:util";
import type { Identity } from "../../shared/auth/identity.js";
import { ENV } from "../../shared/config/config.js";
import { DEFAULT_DEV_IDENTITY, DEFAULT_HOST, DEFAULT_PORT } from "./local-stack.js";

export const USAGE = `Usage: npm start -- [options]

Runs the Skills service locally: HTTP and WebSocket on one port, the real Lambda handlers,
dynalite (DynamoDB) and fauxqs (S3 + SQS) in-process, or ${ENV.awsEndpointUrl} (e.g. LocalStack).

Options:
  --port N          HTTP/WebSocket port (default: $${ENV.port} or ${DEFAULT_PORT}; 0 = any free port)
  --host H          interface to listen on (default: ${DEFAULT_HOST}); requests must name 127.0.0.1,
                    localhost, [::1] or H as their Host (DNS rebinding)
  --data DIR        keep DynamoDB and the documents bucket in DIR across restarts
  --tenant T        tenant of the printed dev token (default: ${DEFAULT_DEV_IDENTITY.tenant})
  --user U          user login of the dev token (default: ${DEFAULT_DEV_IDENTITY.login})
  --projects a,b    projects of the dev token (default: ${DEFAULT_DEV_IDENTITY.projects.join(",")})
  --roles r1,r2     roles of the dev token (default: ${DEFAULT_DEV_IDENTITY.roles.join(",")}; "" for none)
  --token-ttl D     lifetime of the dev token, e.g. 3600, 30m, 12h, 7d (default: 12h)
  --lazy            load each handler on first use instead of all at startup
  --quiet           no access log lines
  -h, --help        show this help
`;

interface CliOptions {
  help: boolean;
  port: number | undefined;
  host: string | undefined;
  dataDir: string | undefined;
  devIdentity: Identity;
  devTokenTtl: string;
  lazy: boolean;
  quiet: boolean;
}

export class CliUsageError extends Error {}

const list = (value: string | undefined, fallback: readonly string[]): string[] =>
  value === undefined
    ? [...fallback]
    : value
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");

function portOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65_535)
    throw new CliUsageError(`--port must be a number from 0 to 65535, got '${value}'`);
  return Number(value);
}

export function parseCliOptions(argv: readonly string[]): CliOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: "string" },
        host: { type: "string" },
        data: { type: "string" },
        tenant: { type: "string" },
        user: { type: "string" },
        projects: { type: "string" },
        roles: { type: "string" },
        "token-ttl": { type: "string" },
        lazy: { type: "boolean" },
        quiet: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    throw new CliUsageError(error instanceof Error ? error.message : String(error));
  }
  return {
    help: values.help ?? false,
    port: portOf(values.port),
    host: values.host,
    dataDir: values.data,
    devIdentity: {
      tenant: values.tenant ?? DEFAULT_DEV_IDENTITY.tenant,
      login: values.user ?? DEFAULT_DEV_IDENTITY.login,
      projects: list(values.projects, DEFAULT_DEV_IDENTITY.projects),
      roles: list(values.roles, DEFAULT_DEV_IDENTITY.roles),
    },
    devTokenTtl: values["token-ttl"] ?? "12h",
    lazy: values.lazy ?? false,
    quiet: values.quiet ?? false,
  };
}
