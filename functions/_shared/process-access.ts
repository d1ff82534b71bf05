import type { SkillsApp } from "../../shared/app/skills-app.js";
import { assertProcessAccess, assertProcessMetadataAccess } from "../../shared/auth/authorization.js";
import { ProcessNotFound } from "../../shared/processes/process-errors.js";
import type { Process } from "../../shared/processes/process.js";
import type { AuthenticatedRequest } from "./http-route.js";

// eslint-disable-next-line no-control-regex
const PLAUSIBLE_ID = /^[^\u0000-\u001f\u007f/\\]{1,256}$/;

/**
 * The process a caller may use, from the caller's own tenant only (the key leads with it, so
 * another tenant's id is simply not found). `owner`: the process's own user (API.md "Processes
 * belong to their user"), else 403; `metadata`: also `project-admin:P` and tenant-admin. An id
 * no store could hold is not found without a lookup.
 */
export async function accessibleProcess(
  app: Pick<SkillsApp, "getProcess">,
  request: AuthenticatedRequest,
  processId: string,
  access: "owner" | "metadata" = "owner",
): Promise<Process> {
  if (!PLAUSIBLE_ID.test(processId)) throw new ProcessNotFound(processId.slice(0, 80));
  const process = await app.getProcess(request.identity.tenant, processId);
  if (access === "metadata") assertProcessMetadataAccess(request.identity, process);
  else assertProcessAccess(request.identity, process);
  return process;
}
