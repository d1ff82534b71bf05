// Steering's use of the process caps (processes/process-limits.ts): appending pending messages
// within them, and cutting model output to them.
import type { PendingMessage, Process } from "../processes/process.js";
import { MAX_PENDING_MESSAGES, MAX_PENDING_TEXT_BYTES, MAX_PENDING_TOTAL_BYTES, utf8Bytes } from "../processes/process-limits.js";
import { PendingLimitExceeded } from "./steering-errors.js";

/** Returns a copy with `messages` appended, or throws PendingLimitExceeded when a cap would break. */
export function appendPending(process: Process, messages: readonly PendingMessage[]): Process {
  if (messages.length === 0) return process;
  for (const m of messages) {
    if (utf8Bytes(m.text) > MAX_PENDING_TEXT_BYTES) {
      throw new PendingLimitExceeded(process.processId, `a message is larger than ${MAX_PENDING_TEXT_BYTES} bytes`);
    }
  }
  const pending = [...process.pending, ...messages];
  if (pending.length > MAX_PENDING_MESSAGES) {
    throw new PendingLimitExceeded(process.processId, `at most ${MAX_PENDING_MESSAGES} messages may wait`);
  }
  const total = pending.reduce((sum, m) => sum + utf8Bytes(m.text), 0);
  if (total > MAX_PENDING_TOTAL_BYTES) {
    throw new PendingLimitExceeded(process.processId, `waiting messages would exceed ${MAX_PENDING_TOTAL_BYTES} bytes`);
  }
  return { ...process, pending };
}

/** Cuts `text` to at most `maxBytes` UTF-8 bytes on a character boundary, marking the cut. */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (utf8Bytes(text) <= maxBytes) return text;
  const marker = "\n[… truncated]";
  const budget = maxBytes - utf8Bytes(marker);
  let cut = "";
  let used = 0;
  for (const ch of text) {
    const size = utf8Bytes(ch);
    if (used + size > budget) break;
    cut += ch;
    used += size;
  }
  return cut + marker;
}
