import type { Process } from "./process.js";

/**
 * At-most-once application of lane messages: SQS may deliver a message again after it was
 * applied (FIFO de-duplication only covers 5 minutes of sends), so the write that applies a
 * request also records its requestId on the process, in the same conditional write.
 * Only the last few are kept to bound the item size; older ones are covered by the request
 * record (request-store.ts), which the lane worker checks first.
 */
export const APPLIED_REQUESTS_KEPT = 64;

export const hasApplied = (process: Process, requestId: string): boolean => process.appliedRequests.includes(requestId);

/** Returns a copy with `requestId` recorded as the newest applied request. */
export const markApplied = (process: Process, requestId: string): Process => ({
  ...process,
  appliedRequests: [...process.appliedRequests.filter((id) => id !== requestId), requestId].slice(-APPLIED_REQUESTS_KEPT),
});
