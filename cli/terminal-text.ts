/**
 * Text from the service (descriptions, bodies, `action:`, tool names, error messages, file paths)
 * is made inert before it reaches a terminal (issue 28: a description wrote the clipboard through
 * OSC 52, a body cleared the screen, an `action:` carried a disguised OSC 8 link). Every control
 * character but line feed and tab — C0 (ESC, BEL, CR, backspace…), DEL, C1 (a lone CSI is one
 * byte, U+009B) — and the bidirectional overrides that reorder what is shown are written as a
 * visible `\u001b`-style escape instead. The form is also a valid JSON escape, so `--format json`
 * output stays parseable.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function inert(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `console.log` and `console.error` for service text: each line inert. */
export const terminal = {
  out: (line: string): void => console.log(inert(line)),
  err: (line: string): void => console.error(inert(line)),
};
