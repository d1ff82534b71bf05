import { SkillsApiError, SkillsClient } from "skills-service/client";
import type { DocumentProblem } from "skills-service/client";
import type { ConsoleConfig } from "./console-config.js";
import type { Session } from "./session.js";

export type * from "skills-service/client";
export { SkillsApiError };
export type { SkillsClient };

/** Every call goes through the typed client (client/), with the signed-in user's token. */
export function clientFor(config: ConsoleConfig, session: Session): SkillsClient {
  return new SkillsClient({
    baseUrl: config.apiUrl,
    ...(config.webSocketUrl ? { webSocketUrl: config.webSocketUrl } : {}),
    tenant: session.tenant,
    token: session.token,
    wait: { preferWaitSeconds: 10, timeoutMs: 30_000 },
  });
}

/** A sentence for the UI, and the problems of a 422. */
export function describeError(error: unknown): { message: string; code?: string; problems: DocumentProblem[] } {
  if (error instanceof SkillsApiError) return { message: error.message, code: error.code, problems: error.problems };
  return { message: error instanceof Error ? error.message : String(error), problems: [] };
}
