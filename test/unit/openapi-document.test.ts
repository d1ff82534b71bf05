import { readFileSync } from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { HTTP_ROUTES } from "../../infra/api-routes.js";
import { buildOpenApiDocument, openApiPath, routeCoverage } from "../../infra/openapi/openapi-document.js";
import { OPENAPI_FILE, openApiText } from "../../infra/openapi/write-openapi.js";
import { STATUS_BY_CODE } from "../../shared/http/error-table.js";

/**
 * The OpenAPI document (infra/openapi/, served from schema/openapi.json): valid OpenAPI 3.1,
 * current with the code, and in step with the route table both ways. A failing route check
 * names the route; the fix is one entry in infra/openapi/route-docs.ts and `npm run openapi`.
 */

type Operation = {
  security?: unknown[];
  requestBody?: unknown;
  responses: Record<string, { description: string; content?: Record<string, { schema: { $ref?: string } }> }>;
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: { error?: { properties?: { code?: { enum?: string[] } } } } }> };
};

const document = buildOpenApiDocument() as unknown as Document;
const METHODS = ["get", "put", "post", "delete", "patch"];
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation })),
);

/** The codes an error answer enumerates, through its `$ref`. */
function codesOf(response: Operation["responses"][string]): string[] {
  const ref = response.content?.["application/json"]?.schema.$ref ?? "";
  return document.components.schemas[ref.replace("#/components/schemas/", "")]?.properties?.error?.properties?.code?.enum ?? [];
}

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)", async () => {
    // Prepare
    const validator = new Validator();

    // Act
    const result = await validator.validate(structuredClone(document) as never);

    // Assess
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("is what schema/openapi.json holds (else run `npm run openapi`)", () => {
    // Act
    const committed = readFileSync(OPENAPI_FILE, "utf8");

    // Assess
    expect(committed, "schema/openapi.json is stale: run `npm run openapi`").toBe(openApiText());
  });

  it("documents every route of infra/api-routes.ts (missing ones are named: add them to infra/openapi/route-docs.ts)", () => {
    // Act
    const { undocumented } = routeCoverage();

    // Assess
    expect(undocumented, `routes without an entry in infra/openapi/route-docs.ts: ${undocumented.join(", ")}`).toEqual([]);
  });

  it("documents no route that infra/api-routes.ts does not know (stale entries are named)", () => {
    // Act
    const { unknown } = routeCoverage();

    // Assess
    expect(unknown, `route-docs.ts entries without a route: ${unknown.join(", ")}`).toEqual([]);
  });

  it("has exactly one operation per route of the table", () => {
    // Prepare
    const expected = HTTP_ROUTES.map((r) => `${r.method} ${openApiPath(r.path)}`).sort();

    // Act
    const documented = operations.map((o) => o.key).sort();

    // Assess
    expect(documented).toEqual(expected);
  });

  it("asks for a bearer token on every route but the public ones", () => {
    // Prepare
    const publicKeys = HTTP_ROUTES.filter((r) => r.public).map((r) => `${r.method} ${openApiPath(r.path)}`);

    // Act
    const open = operations.filter((o) => Array.isArray(o.operation.security) && o.operation.security.length === 0).map((o) => o.key);

    // Assess
    expect(open.sort()).toEqual(publicKeys.sort());
  });

  it("describes every error answer with its codes, each code under its own status", () => {
    // Act
    const mismatched = operations.flatMap(({ key, operation }) =>
      Object.entries(operation.responses)
        .filter(([status]) => Number(status) >= 400)
        .flatMap(([status, response]) => {
          const codes = codesOf(response);
          if (codes.length === 0) return [`${key} ${status}: no codes`];
          return codes
            .filter(
              (code) => STATUS_BY_CODE[code as keyof typeof STATUS_BY_CODE] !== Number(status) || !response.description.includes(code),
            )
            .map((code) => `${key} ${status}: ${code}`);
        }),
    );

    // Assess
    expect(mismatched).toEqual([]);
  });

  it("names every error code of the error table somewhere", () => {
    // Prepare
    const named = new Set(operations.flatMap(({ operation }) => Object.values(operation.responses).flatMap(codesOf)));

    // Act
    const unnamed = Object.keys(STATUS_BY_CODE).filter((code) => !named.has(code));

    // Assess
    expect(unnamed).toEqual([]);
  });

  it("takes the lane calls' bodies from the handlers' schemas (strict: an unknown field is refused)", () => {
    // Act
    const compose = document.paths["/brain/{tenant}/processes/{processId}/turns"]?.post?.requestBody as {
      content: Record<string, { schema: { additionalProperties?: unknown; properties?: object } }>;
    };

    // Assess
    expect(compose.content["application/json"]?.schema).toMatchObject({
      additionalProperties: false,
      properties: { message: {}, context: {}, requestId: {} },
    });
  });
});
