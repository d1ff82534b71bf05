import { decodeJwt } from "jose";
import { ENV } from "../shared/config/config.js";
import { InvalidRequest } from "../shared/errors.js";
import { llmConfigFromEnv } from "../shared/llm/llm-config.js";
import { runChat } from "./chat.js";
import { DEFAULT_SHOW, parseShow } from "./chat-view.js";
import { resolveRemote } from "./remote-target.js";

export interface ChatFlags {
  url?: string | undefined;
  token?: string | undefined;
  project?: string | undefined;
  name?: string | undefined;
  process?: string | undefined;
  recipe?: string | undefined;
  session?: string | undefined;
  tenant?: string | undefined;
  "ws-url"?: string | undefined;
  workdir?: string | undefined;
  show?: string | undefined;
}

/** The local stack's dev tenant (infra/local: DEFAULT_DEV_IDENTITY). */
const LOCAL_TENANT = "demo";

/** The tenant claim of a token, read without verifying it (the service verifies; this only picks a path). */
function tenantOf(token: string | undefined): string | undefined {
  if (!token) return undefined;
  try {
    const tenant = decodeJwt(token).tenant;
    return typeof tenant === "string" ? tenant : undefined;
  } catch {
    return undefined;
  }
}

/** `skills chat`: flags → a resolved service, process and model, then the session. */
export async function runChatCommand(flags: ChatFlags, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (!flags.project) throw new InvalidRequest("--project <id> is required");
  if (flags.name && flags.process) throw new InvalidRequest("--name and --process exclude each other");
  const show = parseShow(flags.show === undefined ? [...DEFAULT_SHOW] : [flags.show]);
  if ("error" in show) throw new InvalidRequest(show.error);
  const tenant = flags.tenant ?? tenantOf(flags.token ?? env[ENV.cliToken]) ?? LOCAL_TENANT;
  const remote = await resolveRemote({ tenant, level: flags.project }, flags, env);
  const llm = llmConfigFromEnv(env);
  return runChat({
    baseUrl: remote.baseUrl,
    token: remote.token,
    tenant,
    projectId: flags.project,
    sessionId: flags.session ?? "chat",
    recipe: flags.recipe ?? "default",
    show: show.parts,
    ...(flags.name ? { name: flags.name } : {}),
    ...(flags.process ? { processId: flags.process } : {}),
    ...(flags["ws-url"] ? { webSocketUrl: flags["ws-url"] } : {}),
    ...(flags.workdir ? { workDir: flags.workdir } : {}),
    ...(llm ? { llm } : {}),
  });
}
