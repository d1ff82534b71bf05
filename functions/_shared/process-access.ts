import type { SkillsApp } from "../../shared/app/skills-app.js";
import { assertProcessMetadataAccess, assertProcessOwner } from "../../shared/auth/authorization.js";
import { ProcessNotFound } from "../../shared/processes/process-errors.js";
import type { Process } from "../../shared/processes/process.js";
import type { AuthenticatedRequest } from "./http-route.js";

// eslint-disable-next-line no-control-regex
const PLAUSIBLE_ID = /^[^\u0000-\u001f\u007f/\\]{1,256}$/;

/**
 * What the caller wants of the process (API.md "Processes belong to their user"):
 * `owner` — compose, preview, turns, complete, tools, steer, request status: its user only;
 * `metadata` — `GET …/processes/{id}` and its active skills: also `project-admin:P` and tenant-admin.
 */
export type ProcessUse = "owner" | "metadata";

/**
 * The process a caller may use, from the caller's own tenant only (the key leads with it, so
 * another tenant's id is simply not found). An id no store could hold is not found without a lookup.
 */
export async function accessibleProcess(
  app: Pick<SkillsApp, "getProcess">,
  request: AuthenticatedRequest,
  processId: string,
  use: ProcessUse = "owner",
): Promise<Process> {
  if (!PLAUSIBLE_ID.test(processId)) throw new ProcessNotFound(processId.slice(0, 80));
  const process = await app.getProcess(request.identity.tenant, processId);
  if (use === "metadata") assertProcessMetadataAccess(request.identity, process);
  else assertProcessOwner(request.identity, process);
  return process;
}
