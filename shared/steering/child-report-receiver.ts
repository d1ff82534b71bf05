import type { ProcessReportPayload } from "../lanes/lane-payloads.js";
import { applyOnce } from "../processes/apply-once.js";
import type { PendingMessage } from "../processes/process.js";
import type { ProcessStore } from "../processes/process-store.js";
import { pendingId } from "./steer-context.js";
import type { SteerOutcome, SteerRequest } from "./steer-context.js";
import { MAX_PENDING_TEXT_BYTES, utf8Bytes } from "../processes/process-limits.js";
import { appendPending, truncateUtf8 } from "./steering-limits.js";

export const PROCESS_SENDER = "_process";

export interface ReportResult {
  turnScheduled: boolean;
}

/**
 * The parent's side of a finished worker (spec §2c "reports its terminal status along with the
 * last response … back to the caller's Inbox; its Lane then wakes up"): the report becomes a
 * pending message (sender `_process`, kind `report`) and a parent turn is scheduled.
 */
export class ChildReportReceiver {
  constructor(
    private readonly store: ProcessStore,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async receive(req: SteerRequest, payload: ProcessReportPayload): Promise<SteerOutcome<ReportResult>> {
    const message: PendingMessage = {
      id: pendingId(req.requestId, "report"),
      sender: PROCESS_SENDER,
      text: reportText(payload),
      kind: "report",
      at: this.clock().toISOString(),
      childProcessId: payload.childProcessId,
    };
    return applyOnce<SteerOutcome<ReportResult>>(this.store, req, {
      // Applied already: the parent turn was scheduled then, unless a turn consumed the report since.
      alreadyApplied: (process) => ({
        result: { turnScheduled: process.pending.some((m) => m.id === message.id) },
        process,
        scheduled: undefined,
      }),
      // One read and one write, as before: the write starts from the snapshot.
      prepare: async () => ({
        fromSnapshot: true,
        mutate: (current) => ({
          process: appendPending(current, [message]),
          answer: (process) => ({ result: { turnScheduled: true }, process, scheduled: { reason: "report", pending: process.pending } }),
        }),
      }),
    });
  }
}

/** A header the model can read, then the child's last output, cut to fit one pending message. */
export function reportText(payload: Pick<ProcessReportPayload, "childName" | "childProcessId" | "status" | "output">): string {
  const header = `Worker process '${payload.childName}' (${payload.childProcessId}) ended with status ${payload.status}.`;
  const output = payload.output.trim();
  if (output === "") return header;
  const budget = MAX_PENDING_TEXT_BYTES - utf8Bytes(header) - 2;
  return `${header}\n\n${truncateUtf8(output, budget)}`;
}
