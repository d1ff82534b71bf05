import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { buildOpenApiDocument, routeCoverage } from "./openapi-document.js";

/** `npm run openapi`: regenerates schema/openapi.json (served by GET /openapi.json). */
export const OPENAPI_FILE = fileURLToPath(new URL("../../schema/openapi.json", import.meta.url));

export const openApiText = (): string => `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { undocumented, unknown } = routeCoverage();
  for (const key of undocumented) console.warn(`route without an entry in infra/openapi/route-docs.ts: ${key}`);
  for (const key of unknown) console.warn(`route-docs.ts entry for a route infra/api-routes.ts does not know: ${key}`);
  writeFileSync(OPENAPI_FILE, openApiText());
  console.log(`wrote ${OPENAPI_FILE}`);
}
