import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * bench/sdk-floor-entry.ts stands for the AWS SDK every composition-path function bundles at init
 * (cold_init_ratio_sdk_floor). An adapter that starts importing another command or client from those
 * packages must show in the floor too, or the floor would understate it.
 */

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const FLOOR = "bench/sdk-floor-entry.ts";
/** The packages every composition-path function loads at init; SQS and the WebSocket API load on first use where they can. */
const AT_INIT = ["@aws-sdk/client-dynamodb", "@aws-sdk/lib-dynamodb", "@aws-sdk/client-s3"];

const sourcesUnder = (dir: string): string[] =>
  readdirSync(join(ROOT, dir)).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(join(ROOT, path)).isDirectory()) return sourcesUnder(path);
    return path.endsWith(".ts") ? [path] : [];
  });

/**
 * `package: name` for every value (not `type`) import or re-export from AT_INIT packages in a file;
 * a namespace import or `export *` is `package: *`, which no floor lists: it must name what it uses.
 */
function valueImports(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(join(ROOT, path), "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const statement of source.statements) {
    const specifier = (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier) || !AT_INIT.includes(specifier.text)) continue;
    const from = specifier.text;
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause === undefined || clause.isTypeOnly) continue;
      const bindings = clause.namedBindings;
      if (clause.name !== undefined || (bindings !== undefined && ts.isNamespaceImport(bindings))) found.push(`${from}: *`);
      if (bindings !== undefined && ts.isNamedImports(bindings))
        for (const element of bindings.elements)
          if (!element.isTypeOnly) found.push(`${from}: ${(element.propertyName ?? element.name).text}`);
    } else if (!statement.isTypeOnly) {
      const clause = statement.exportClause;
      if (clause === undefined || ts.isNamespaceExport(clause)) found.push(`${from}: *`);
      else
        for (const element of clause.elements)
          if (!element.isTypeOnly) found.push(`${from}: ${(element.propertyName ?? element.name).text}`);
    }
  }
  return found;
}

describe("the SDK floor entry of the bundle bench", () => {
  it("imports every client and command the service's code imports from the packages loaded at init", () => {
    // Arrange
    const service = [...sourcesUnder("shared"), ...sourcesUnder("functions")].flatMap(valueImports);

    // Act
    const floor = new Set(valueImports(FLOOR));

    // Assess: the clients themselves are built through shared/aws, which the floor imports.
    const missing = [...new Set(service)].filter(
      (name) => !floor.has(name) && !/: (DynamoDBClient|S3Client|DynamoDBDocumentClient)$/.test(name),
    );
    expect(service.length).toBeGreaterThan(10);
    expect(missing).toEqual([]);
  });
});
