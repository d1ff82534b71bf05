import { describe, expect, it } from "vitest";
import ajvNotBundled from "../../shared/app/mcp/ajv-not-bundled.js";
import { NO_ELICITATION, refusingJsonSchemaValidator } from "../../shared/app/mcp/mcp-json-schema-validator.js";

describe("the MCP server's JSON-schema validator (no ajv)", () => {
  it("refuses every elicitation answer, even one that fits the schema, with the reason", () => {
    // Prepare
    const validate = refusingJsonSchemaValidator.getValidator<{ name: string }>({
      type: "object",
      properties: { name: { type: "string" } },
    });

    // Act
    const result = validate({ name: "fits" });

    // Assess
    expect(result).toEqual({ valid: false, data: undefined, errorMessage: NO_ELICITATION });
  });

  it("the ajv stand-in of the bundles throws when the SDK would build its default validator", () => {
    // Act
    const construct = (): unknown => new (ajvNotBundled as unknown as new (options: object) => unknown)({ strict: false });

    // Assess
    expect(construct).toThrow(/jsonSchemaValidator/);
  });
});
