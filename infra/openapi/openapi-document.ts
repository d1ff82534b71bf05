import * as z from "zod/mini";
import { ApiError, doneOf, Queued, STATUS_BY_CODE } from "../../contract/index.js";
import type { ErrorCode } from "../../contract/index.js";
import { HTTP_ROUTES } from "../api-routes.js";
import { COMMON_ERRORS, ROUTE_DOCS } from "./route-docs.js";
import type { RouteDoc } from "./route-docs.js";

/** `{path+}` (API Gateway's greedy segment) is `{path}` in OpenAPI; the slashes it may hold are described. */
export const openApiPath = (path: string): string => path.replace(/\{(\w+)\+\}/g, "{$1}");

/** `"<METHOD> <path>"` of every route infra/api-routes.ts knows and of every documented one. */
export const routeKey = (method: string, path: string): string => `${method.toUpperCase()} ${path}`;

export interface RouteCoverage {
  /** In the route table, not in ROUTE_DOCS: add an entry in infra/openapi/route-docs.ts. */
  undocumented: string[];
  /** In ROUTE_DOCS, not in the route table: a stale or misspelt entry. */
  unknown: string[];
}

export function routeCoverage(): RouteCoverage {
  const known = new Set(HTTP_ROUTES.map((r) => routeKey(r.method, r.path)));
  const documented = new Set(Object.keys(ROUTE_DOCS));
  return {
    undocumented: [...known].filter((k) => !documented.has(k)).sort(),
    unknown: [...documented].filter((k) => !known.has(k)).sort(),
  };
}

type Schema = z.core.$ZodType;
type JsonSchema = Record<string, unknown>;
type Content = Record<string, { schema: JsonSchema }>;
interface Response {
  description: string;
  content?: Content;
}

const COMPONENT = "#/components/schemas/";

/**
 * Turns contract schemas into the document's JSON Schemas: a schema registered with an id (the
 * contract's `z.meta({ id })`) becomes one entry of `components.schemas`, referenced wherever it
 * is used. `io: "input"` reads an object as its parser does: strict ones are closed, loose ones open.
 */
class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  toJson(schema: Schema): JsonSchema {
    const {
      $defs = {},
      $schema: _dialect,
      ...root
    } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
    };
    for (const [id, definition] of Object.entries($defs)) this.schemas[id] ??= tidy(definition);
    return tidy(root);
  }

  /** A named component built here (the error answers), referenced by `$ref`. */
  named(id: string, make: () => Schema): JsonSchema {
    if (!this.schemas[id]) this.schemas[id] = this.toJson(make());
    return { $ref: `${COMPONENT}${id}` };
  }
}

/** `#/$defs/X` → `#/components/schemas/X`; z.int()'s safe-integer bounds dropped (they say nothing a reader needs). */
function tidy(value: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(value), (key, v: unknown) => {
    if (key === "$ref" && typeof v === "string") return v.replace("#/$defs/", COMPONENT);
    if ((key === "minimum" || key === "maximum") && typeof v === "number" && Math.abs(v) === Number.MAX_SAFE_INTEGER) return undefined;
    return v;
  }) as JsonSchema;
}

/** One schema per set of codes, shared by every route that answers that set (the document stays small). */
function errorSchema(components: SchemaComponents, codes: ErrorCode[]): JsonSchema {
  return components.named(`Error_${codes.join("_or_")}`, () => {
    const problems = codes.includes("INVALID_DOCUMENT") ? { problems: ApiError.shape.problems } : {};
    return z.object({ error: z.looseObject({ code: z.enum(codes as [ErrorCode, ...ErrorCode[]]), message: z.string(), ...problems }) });
  });
}

/** The route's errors grouped by their status (contract/error-codes.ts), each status listing its codes. */
function errorResponses(doc: RouteDoc, isPublic: boolean, components: SchemaComponents): Record<number, Response> {
  const codes = [
    ...new Set<ErrorCode>([
      ...(isPublic ? (["TOO_MANY_REQUESTS", "SERVICE_UNAVAILABLE", "INTERNAL"] as ErrorCode[]) : COMMON_ERRORS),
      ...(doc.errors ?? []),
    ]),
  ];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(STATUS_BY_CODE[code], [...(byStatus.get(STATUS_BY_CODE[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [
        status,
        { description: list.sort().join(", "), content: { "application/json": { schema: errorSchema(components, list) } } },
      ]),
  );
}

const BINARY: JsonSchema = { type: "string", format: "binary" };

function successResponses(doc: RouteDoc, components: SchemaComponents): Record<number, Response> {
  if (doc.lane) {
    return {
      200: {
        description: "`Prefer: wait=N` and the lane applied the request in time: its result",
        content: { "application/json": { schema: components.toJson(doneOf(doc.lane)) } },
      },
      202: {
        description: "Queued (or the stored status of a repeated requestId); poll GET …/requests/{requestId}",
        content: { "application/json": { schema: components.toJson(Queued) } },
      },
    };
  }
  return Object.fromEntries(
    Object.entries(doc.responses ?? {}).map(([status, { description, schema, json }]) => [
      status,
      schema === undefined
        ? { description }
        : schema === "raw"
          ? {
              description,
              content: { "*/*": { schema: BINARY }, ...(json ? { "application/json": { schema: components.toJson(json) } } : {}) },
            }
          : { description, content: { "application/json": { schema: components.toJson(schema) } } },
    ]),
  );
}

const PARAM_DESCRIPTIONS: Record<string, string> = {
  tenant: "The token's tenant (another one is 403)",
  project: "A project id, `_tenant` or `_user_<login>`",
  path: "The document's path inside the level, slashes included (e.g. `_vance/skills/x/SKILL.md`)",
};

const PREFER = "`wait=N` (N ≤ 20 seconds): wait for the lane and answer 200 with the result or the error";

/** An OpenAPI parameter; its description is its schema's, repeated where readers look for it. */
function parameter(name: string, where: "path" | "query" | "header", required: boolean, schema: JsonSchema): JsonSchema {
  const description = typeof schema.description === "string" ? { description: schema.description } : {};
  return { schema, required, ...description, name, in: where };
}

function queryParameters(query: z.ZodMiniObject, components: SchemaComponents): JsonSchema[] {
  const json = components.toJson(query) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, schema]) =>
    parameter(name, "query", (json.required ?? []).includes(name), schema),
  );
}

function operation(method: string, path: string, doc: RouteDoc, isPublic: boolean, components: SchemaComponents): JsonSchema {
  const names = [...path.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1] as string);
  const parameters = [
    ...names.map((name) =>
      parameter(name, "path", true, { type: "string", ...(PARAM_DESCRIPTIONS[name] ? { description: PARAM_DESCRIPTIONS[name] } : {}) }),
    ),
    ...(doc.query ? queryParameters(doc.query, components) : []),
    ...(doc.lane ? [parameter("prefer", "header", false, { type: "string", description: PREFER })] : []),
  ];
  const body = doc.body
    ? { requestBody: { required: true, content: { "application/json": { schema: components.toJson(doc.body) } } } }
    : doc.rawBody
      ? { requestBody: { required: true, description: "The raw file; any content type", content: { "*/*": { schema: BINARY } } } }
      : {};
  return {
    operationId: `${method.toLowerCase()}${openApiPath(path)
      .replace(/\{(\w+)\}/g, "By_$1")
      .replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())}`,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.tag],
    ...(isPublic ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...body,
    responses: { ...successResponses(doc, components), ...errorResponses(doc, isPublic, components) },
  };
}

/**
 * The OpenAPI 3.1 document of the HTTP API: every documented route of infra/api-routes.ts, its
 * bodies and answers the contract's schemas (contract/) through zod's own JSON Schema output.
 * Written to schema/openapi.json by `npm run openapi` (write-openapi.ts) and served from that
 * file, so no Lambda carries the generator.
 */
export function buildOpenApiDocument(version = "0.1.0"): Record<string, unknown> {
  const components = new SchemaComponents();
  const publicPaths = new Set(HTTP_ROUTES.filter((r) => r.public).map((r) => routeKey(r.method, r.path)));
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const [key, doc] of Object.entries(ROUTE_DOCS)) {
    const [method = "", path = ""] = key.split(" ");
    (paths[openApiPath(path)] ??= {})[method.toLowerCase()] = operation(method, path, doc, publicPaths.has(key), components);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Skills service",
      version,
      description:
        'Reusable SKILL.md capabilities for an LLM agent platform. The contract: API.md. Errors are `{"error":{"code","message"}}`; each error answer lists its codes.',
    },
    servers: [{ url: "http://127.0.0.1:3000", description: "npm start" }],
    security: [{ bearer: [] }],
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" } }, schemas: components.schemas },
    paths,
  };
}
