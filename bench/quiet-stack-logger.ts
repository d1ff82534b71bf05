import type { LocalStackLogger } from "../infra/local/local-logger.js";

/** The local stack's logger for a bench: only errors print, so the table stays readable. */
export const quiet: LocalStackLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: (message, detail) => console.error(`[local stack] ${message}`, detail ?? ""),
};
