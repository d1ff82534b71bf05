import { ENV, readConfig } from "../shared/config/config.js";
import { validateProjectName, validateTenantId } from "../shared/documents/document-path.js";
import { InvalidRequest } from "../shared/errors.js";
import { issueDevToken } from "./token.js";

/** One level of one tenant, as `--to acme/alpha` or `--from acme/_tenant` name it. */
export interface LevelTarget {
  tenant: string;
  /** A project id, `_tenant` or `_user_<login>`. */
  level: string;
}

/** Where the CLI's `push` / `pull` go: a level on a service, and the token to present there. */
export interface RemoteTarget extends LevelTarget {
  baseUrl: URL;
  token: string;
}

/** `<tenant>/<level>`, both checked with the server's own rules so a typo fails before any request. */
export function parseLevelTarget(value: string | undefined, flag: string): LevelTarget {
  if (value === undefined || value === "") throw new InvalidRequest(`${flag} <tenant>/<level> is required`);
  const slash = value.indexOf("/");
  if (slash <= 0 || slash !== value.lastIndexOf("/")) {
    throw new InvalidRequest(`${flag} expects <tenant>/<level> (level: a project id, _tenant or _user_<login>), got '${value}'`);
  }
  const tenant = value.slice(0, slash);
  const level = value.slice(slash + 1);
  try {
    return { tenant: validateTenantId(tenant), level: validateProjectName(level) };
  } catch (error) {
    throw new InvalidRequest(`${flag}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** API.md "The `skills` command against a running service": the local stack's address. */
export const DEFAULT_SERVICE_URL = "http://127.0.0.1:3000";

const isLoopback = (url: URL): boolean => ["127.0.0.1", "localhost", "[::1]", "::1"].includes(url.hostname);

/**
 * Flags win over the cliUrl / cliToken settings (shared/config); the URL defaults to the local
 * stack's, and for a loopback URL without a token the CLI signs a dev token as the local stack
 * does (its secret from SKILLS_JWT_SECRET, else the local default): the dev login with
 * tenant-admin of the target tenant, so `skills push dir --to acme/alpha` just works locally.
 */
export async function resolveRemote(
  target: LevelTarget,
  flags: { url?: string | undefined; token?: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
): Promise<RemoteTarget> {
  const config = readConfig(env, ["cliUrl", "cliToken"], { errorAs: (error) => new InvalidRequest(error.message) });
  let baseUrl = config.cliUrl ?? new URL(DEFAULT_SERVICE_URL);
  if (flags.url !== undefined) {
    try {
      baseUrl = new URL(flags.url);
    } catch {
      throw new InvalidRequest(`--url '${flags.url}' is not a valid URL`);
    }
  }
  if (!baseUrl) throw new InvalidRequest(`no server: pass --url or set ${ENV.cliUrl}`);
  if (baseUrl.protocol !== "http:" && baseUrl.protocol !== "https:")
    throw new InvalidRequest(`--url must be http or https, got '${baseUrl.protocol}'`);
  let token = flags.token ?? config.cliToken;
  if ((token === undefined || token === "") && isLoopback(baseUrl)) {
    token = await issueDevToken({ tenant: target.tenant, user: "dev", roles: ["tenant-admin"], projects: [] }, env);
  }
  if (token === undefined || token === "") throw new InvalidRequest(`no token: set ${ENV.cliToken} (or pass --token)`);
  return { ...target, baseUrl, token };
}
