import { ProcessEnded } from "./process-errors.js";
import type { Process } from "./process.js";

/** API.md: a process whose status is DONE refuses steering and turns (409 PROCESS_ENDED), at the door and again in the lane. */
export function assertNotEnded(process: Pick<Process, "processId" | "status">): void {
  if (process.status === "DONE") throw new ProcessEnded(process.processId);
}
