import { InvalidRequest } from "../errors.js";

/** A quota of the workspace was used up; the script sees the message and may catch it. */
export class WorkspaceQuotaExceeded extends InvalidRequest {}
