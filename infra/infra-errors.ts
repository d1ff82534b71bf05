/** A stack that cannot be built as configured (bad context value, missing wiring). Thrown at synth time. */
export class InfraConfigurationError extends Error {
  override readonly name = "InfraConfigurationError";
}
