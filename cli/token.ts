import { parseArgs } from "node:util";
import { LOCAL_DEV_SECRET } from "../shared/auth/auth-config.js";
import { issueToken } from "../shared/auth/token-issuer.js";
import { readConfig } from "../shared/config/config.js";
import { InvalidRequest } from "../shared/errors.js";

/** `npx skills token --tenant T --user U [--projects a,b] [--roles r1,r2] [--ttl 12h]` */
export const TOKEN_USAGE = "Usage: skills token --tenant T --user U [--projects a,b] [--roles r1,r2] [--ttl 12h]";

interface DevTokenOptions {
  readonly tenant: string;
  readonly user: string;
  readonly projects?: readonly string[];
  readonly roles?: readonly string[];
  /** Seconds or a span such as `12h` (default). */
  readonly ttl?: number | string;
  /** Defaults to `SKILLS_JWT_SECRET`, then the local-mode default, matching what `npm start` verifies with. */
  readonly secret?: string;
  readonly issuer?: string;
  readonly audience?: string;
}

const DEFAULT_DEV_TOKEN_TTL = "12h";

/**
 * A signed HS256 token for the local stack (or any deployment whose secret you hold).
 * The secret comes from the environment, never from the command line, where `ps` would show it.
 */
export async function issueDevToken(opts: DevTokenOptions, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const settings = readConfig(env, ["jwtSecret", "jwtIssuer", "jwtAudience"]);
  const secret = opts.secret ?? settings.jwtSecret ?? LOCAL_DEV_SECRET;
  const issuer = opts.issuer ?? settings.jwtIssuer;
  const audience = opts.audience ?? settings.jwtAudience;
  return issueToken(
    { login: opts.user, tenant: opts.tenant, projects: [...(opts.projects ?? [])], roles: [...(opts.roles ?? [])] },
    secret,
    {
      ttl: opts.ttl ?? DEFAULT_DEV_TOKEN_TTL,
      ...(issuer === undefined ? {} : { issuer }),
      ...(audience === undefined ? {} : { audience }),
    },
  );
}

const list = (value: string | undefined): string[] =>
  value === undefined
    ? []
    : value
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item !== "");

/** Parses the arguments after `token`; InvalidRequest (with the usage line) on anything wrong. */
export function parseTokenArgs(argv: readonly string[]): DevTokenOptions {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        tenant: { type: "string" },
        user: { type: "string" },
        projects: { type: "string" },
        roles: { type: "string" },
        ttl: { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    }) as { values: Record<string, string | undefined> });
  } catch (error) {
    throw new InvalidRequest(`${error instanceof Error ? error.message : String(error)}\n${TOKEN_USAGE}`);
  }
  const { tenant, user, projects, roles, ttl } = values;
  if (tenant === undefined || tenant === "") throw new InvalidRequest(`--tenant is required\n${TOKEN_USAGE}`);
  if (user === undefined || user === "") throw new InvalidRequest(`--user is required\n${TOKEN_USAGE}`);
  return {
    tenant,
    user,
    projects: list(projects),
    roles: list(roles),
    ...(ttl === undefined ? {} : { ttl: /^\d+$/.test(ttl) ? Number.parseInt(ttl, 10) : ttl }),
  };
}

/** The `token` subcommand: prints only the token on stdout so `$(npx skills token …)` works. Returns the exit code. */
export async function runTokenCommand(
  argv: readonly string[],
  io: { out: (line: string) => void; err: (line: string) => void } = { out: (l) => console.log(l), err: (l) => console.error(l) },
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  try {
    io.out(await issueDevToken(parseTokenArgs(argv), env));
    return 0;
  } catch (error) {
    io.err(
      error instanceof InvalidRequest
        ? error.message
        : `Could not issue a token: ${error instanceof Error ? error.message : String(error)}`,
    );
    return 2;
  }
}
