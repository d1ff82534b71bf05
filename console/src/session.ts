import { decodeJwt } from "jose";
import { TENANT_PROJECT, userProject } from "skills-service/client";
import type { WritableLevel } from "skills-service/client";

/** Who the pasted token says the user is (the service checks it; the console only displays it). */
export interface Session {
  token: string;
  tenant: string;
  login: string;
  projects: string[];
  roles: string[];
  expiresAt?: Date;
}

const STORAGE_KEY = "skills-console.token";

/** Reads a token's claims; throws a sentence for the sign-in form when it is not one of ours. */
export function sessionOf(token: string): Session {
  const trimmed = token.trim();
  let claims;
  try {
    claims = decodeJwt(trimmed);
  } catch {
    throw new Error("That is not a JWT (three base64url parts separated by dots).");
  }
  const tenant = claims["tenant"];
  if (typeof tenant !== "string" || tenant === "") throw new Error("The token has no 'tenant' claim.");
  if (typeof claims.sub !== "string" || claims.sub === "") throw new Error("The token has no 'sub' claim (the user's login).");
  const list = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []);
  const expiresAt = typeof claims.exp === "number" ? new Date(claims.exp * 1000) : undefined;
  if (expiresAt && expiresAt.getTime() < Date.now()) throw new Error(`The token expired at ${expiresAt.toISOString()}.`);
  return {
    token: trimmed,
    tenant,
    login: claims.sub,
    projects: list(claims["projects"]),
    roles: list(claims["roles"]),
    ...(expiresAt ? { expiresAt } : {}),
  };
}

/**
 * `#token=<jwt>&project=<id>`: the link `npm start` prints. The token leaves the URL at once; the
 * project stays (a reload keeps it, and the console follows it when it changes).
 */
export function takeHashParameters(): { token?: string; project?: string } {
  const parameters = new URLSearchParams(location.hash.replace(/^#/, ""));
  const token = parameters.get("token") ?? undefined;
  const project = parameters.get("project") ?? undefined;
  if (token !== undefined) history.replaceState(null, "", location.pathname + location.search + (project ? projectHash(project) : ""));
  return { ...(token ? { token } : {}), ...(project ? { project } : {}) };
}

export const projectHash = (project: string): string => `#project=${encodeURIComponent(project)}`;

/** A tenant-admin may open any project of the tenant, not only those the token lists. */
export const mayOpenAnyProject = (session: Session): boolean => session.roles.includes("tenant-admin");

/**
 * A token from the link or from this tab's last sign-in, read as a session or refused with the
 * reason: a refused token is said, never silently replaced by the dev token the form pre-fills.
 */
export function openToken(token: string, from: "link" | "tab"): { session: Session } | { refusal: string } {
  try {
    return { session: sessionOf(token) };
  } catch (failure) {
    const reason = failure instanceof Error ? failure.message : String(failure);
    return {
      refusal: `The token ${from === "link" ? "in the link (#token=…)" : "of this tab's last sign-in"} was refused: ${reason} Sign in with another token.`,
    };
  }
}

// sessionStorage, not localStorage: a bearer token should not outlive the tab.
export const rememberToken = (token: string): void => sessionStorage.setItem(STORAGE_KEY, token);
export const rememberedToken = (): string | undefined => sessionStorage.getItem(STORAGE_KEY) ?? undefined;
export const forgetToken = (): void => sessionStorage.removeItem(STORAGE_KEY);

/** The levels this user can see, innermost first, with the cascade's names for them. */
export function levelsOf(session: Session, project: string): { id: string; source: WritableLevel; label: string }[] {
  const levels: { id: string; source: WritableLevel }[] = [
    { id: userProject(session.login), source: "USER" },
    { id: project, source: "PROJECT" },
    { id: TENANT_PROJECT, source: "VANCE" },
  ];
  return levels.map((level) => ({ ...level, label: `${level.source} (${level.id})` }));
}
