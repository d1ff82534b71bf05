/** The deployment is configured wrongly: a missing or malformed environment variable, a resource this function was not given. */
export class ConfigurationError extends Error {
  override readonly name = "ConfigurationError";
  /** The environment variable at fault, when one is. */
  readonly variable: string | undefined;
  constructor(message: string, options: { variable?: string | undefined; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.variable = options.variable;
  }
}
