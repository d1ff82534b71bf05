import type { PendingMessage, Process } from "../processes/process.js";
import { PendingLimitExceeded } from "./steering-errors.js";

/**
 * Caps that keep a process item well below DynamoDB's 400 KB (the store's ProcessTooLarge is
 * only the backstop): every text that lands in `pending` or on an ActiveSkillRef is bounded here,
 * before anything is written.
 */
export const MAX_PENDING_TEXT_BYTES = 32 * 1024;
export const MAX_PENDING_MESSAGES = 100;
/** 100 messages of 32 KB would not fit one item; the total is what actually protects it. */
export const MAX_PENDING_TOTAL_BYTES = 192 * 1024;
export { MAX_ARGS_BYTES } from "../../contract/limits.js";
/** lastOutput and a child's report are model output: cut, not refused (the turn already happened). */
export const MAX_OUTPUT_BYTES = 32 * 1024;

export const utf8Bytes = (text: string): number => Buffer.byteLength(text, "utf8");

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
