// The one logger port (issue 29: twelve per-file interfaces said the same thing). The Powertools
// Logger satisfies it on Lambda and `console` locally; tests pass a recorder. A consumer names the
// levels it uses (`Pick<Logger, "warn">`), so a test's recorder needs only those.

/** Structured fields logged beside the message (Powertools merges them into the JSON line). */
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, ...extra: LogFields[]): void;
  info(message: string, ...extra: LogFields[]): void;
  warn(message: string, ...extra: LogFields[]): void;
  error(message: string, ...extra: LogFields[]): void;
}
