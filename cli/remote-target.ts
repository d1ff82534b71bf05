import { ENV, readConfig } from "../shared/config/config.js";
import { validateProjectName, validateTenantId } from "../shared/documents/document-path.js";
import { InvalidRequest } from "../shared/errors.js";

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

/** Flags win over the cliUrl / cliToken settings (shared/config); both must end up set. */
export function resolveRemote(
  target: LevelTarget,
  flags: { url?: string | undefined; token?: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
): RemoteTarget {
  const config = readConfig(env, ["cliUrl", "cliToken"], { errorAs: (error) => new InvalidRequest(error.message) });
  let baseUrl = config.cliUrl;
  if (flags.url !== undefined) {
    try {
      baseUrl = new URL(flags.url);
    } catch {
      throw new InvalidRequest(`--url '${flags.url}' is not a valid URL`);
    }
  }
  if (!baseUrl) throw new InvalidRequest(`no server: pass --url or set ${ENV.cliUrl}`);
  if (baseUrl.protocol !== "http:" && baseUrl.protocol !== "https:") throw new InvalidRequest(`--url must be http or https, got '${baseUrl.protocol}'`);
  const token = flags.token ?? config.cliToken;
  if (token === undefined || token === "") throw new InvalidRequest(`no token: set ${ENV.cliToken} (or pass --token)`);
  return { ...target, baseUrl, token };
}
