/** Where the local stack reports what it does; the CLI prints, tests stay quiet. */
export interface LocalStackLogger {
  info(message: string): void;
  warn(message: string, detail?: unknown): void;
  error(message: string, detail?: unknown): void;
}

export const consoleLogger: LocalStackLogger = {
  info: (message) => console.log(message),
  warn: (message, detail) => (detail === undefined ? console.warn(message) : console.warn(message, detail)),
  error: (message, detail) => (detail === undefined ? console.error(message) : console.error(message, detail)),
};
