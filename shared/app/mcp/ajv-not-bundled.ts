/**
 * Stands in for `ajv` and `ajv-formats` in the Lambda bundles only (an esbuild alias,
 * BUNDLE_ALIASES in infra/lambda-bundle.ts). The MCP SDK imports them for its default
 * JSON-schema validator; the server is built with refusingJsonSchemaValidator instead
 * (mcp-json-schema-validator.ts), so neither is ever called. If one is, the bundle says so.
 */
export default function ajvNotBundled(): never {
  throw new Error("ajv is not in the Lambda bundles: give the MCP SDK a jsonSchemaValidator (shared/app/mcp/mcp-json-schema-validator.ts)");
}
