// The caps on what a process item holds. The lane's payload schemas check them on the way in and
// steering enforces them on the way to the store, so they live with the process, below both (issue
// 29: they were in steering/steering-limits.ts, which made lanes/ import upward).

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
