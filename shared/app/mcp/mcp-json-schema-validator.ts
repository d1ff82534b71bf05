import type { JsonSchemaValidatorResult, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";

/** The message of every answer the validator gives: the server has no form to check an answer against. */
export const NO_ELICITATION = "The Skills MCP server does not elicit input, so it validates no elicitation answer";

/**
 * The JSON-schema validator handed to the MCP `Server`. The SDK uses one only to check a client's
 * answer to `elicitInput` (a form the server asks the user to fill), which this server never
 * sends. Its default, ajv with ajv-formats, is ~260 KB the Lambda would compile at every cold
 * start for nothing; the bundles alias ajv away (shared/app/mcp/ajv-not-bundled.ts, infra/lambda-bundle.ts).
 * Should elicitation ever be sent, every answer is refused with NO_ELICITATION rather than accepted unchecked.
 */
export const refusingJsonSchemaValidator: jsonSchemaValidator = {
  getValidator<T>() {
    return (): JsonSchemaValidatorResult<T> => ({ valid: false, data: undefined, errorMessage: NO_ELICITATION });
  },
};
