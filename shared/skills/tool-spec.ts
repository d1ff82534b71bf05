// The shape of a tool as the engine advertises it to the model. Both the service tools (turns/)
// and a skill's scripts (scripts/) produce it, so it lives below both (issue 29: it was in
// turns/turn.ts, which made scripts/ import upward).

/** A tool the turn may call, as the engine advertises it to the model. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the tool's `args`. */
  inputSchema: Record<string, unknown>;
}
