import { OpenApiGeneratorV31, OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import type { ResponseConfig, RouteConfig } from "@asteasolutions/zod-to-openapi";
import * as z from "zod";
import type { ErrorCode } from "../../shared/errors.js";
import { STATUS_BY_CODE } from "../../shared/http/error-table.js";
import { HTTP_ROUTES } from "../api-routes.js";
import { COMMON_ERRORS, ROUTE_DOCS } from "./route-docs.js";
import type { RouteDoc } from "./route-docs.js";
import { ApiErrorBody, doneOf, QueuedOut } from "./wire-schemas.js";

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
  return { undocumented: [...known].filter((k) => !documented.has(k)).sort(), unknown: [...documented].filter((k) => !known.has(k)).sort() };
}

/** One schema per set of codes, shared by every route that answers that set (the document stays small). */
function errorSchemas(): (codes: ErrorCode[]) => z.ZodType {
  const made = new Map<string, z.ZodType>();
  return (codes) => {
    const id = `Error_${codes.join("_or_")}`;
    let schema = made.get(id);
    if (!schema) {
      const problems = codes.includes("INVALID_DOCUMENT") ? { problems: ApiErrorBody.shape.error.shape.problems } : {};
      schema = z.object({ error: z.looseObject({ code: z.enum(codes as [ErrorCode, ...ErrorCode[]]), message: z.string(), ...problems }) }).meta({ id });
      made.set(id, schema);
    }
    return schema;
  };
}

/** The route's errors grouped by their status (shared/http/error-table.ts), each status listing its codes. */
function errorResponses(doc: RouteDoc, isPublic: boolean, schemaOf: (codes: ErrorCode[]) => z.ZodType): Record<number, ResponseConfig> {
  const codes = [...new Set<ErrorCode>([...(isPublic ? (["TOO_MANY_REQUESTS", "SERVICE_UNAVAILABLE", "INTERNAL"] as ErrorCode[]) : COMMON_ERRORS), ...(doc.errors ?? [])])];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(STATUS_BY_CODE[code], [...(byStatus.get(STATUS_BY_CODE[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [status, { description: list.sort().join(", "), content: { "application/json": { schema: schemaOf(list) } } }]),
  );
}

function successResponses(doc: RouteDoc): Record<number, ResponseConfig> {
  if (doc.lane) {
    return {
      200: { description: "`Prefer: wait=N` and the lane applied the request in time: its result", content: { "application/json": { schema: doneOf(doc.lane) } } },
      202: { description: "Queued (or the stored status of a repeated requestId); poll GET …/requests/{requestId}", content: { "application/json": { schema: QueuedOut } } },
    };
  }
  return Object.fromEntries(
    Object.entries(doc.responses ?? {}).map(([status, { description, schema, json }]) => [
      status,
      schema === undefined
        ? { description }
        : schema === "raw"
          ? { description, content: { "*/*": { schema: z.string().meta({ format: "binary" }) }, ...(json ? { "application/json": { schema: json } } : {}) } }
          : { description, content: { "application/json": { schema } } },
    ]),
  );
}

const PARAM_DESCRIPTIONS: Record<string, string> = {
  tenant: "The token's tenant (another one is 403)",
  project: "A project id, `_tenant` or `_user_<login>`",
  path: "The document's path inside the level, slashes included (e.g. `_vance/skills/x/SKILL.md`)",
};

function routeConfig(method: string, path: string, doc: RouteDoc, isPublic: boolean, schemaOf: (codes: ErrorCode[]) => z.ZodType): RouteConfig {
  const names = [...path.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1] as string);
  const params = z.object(Object.fromEntries(names.map((name) => [name, z.string().meta(PARAM_DESCRIPTIONS[name] ? { description: PARAM_DESCRIPTIONS[name] } : {})])));
  const request: RouteConfig["request"] = {
    ...(names.length > 0 ? { params } : {}),
    ...(doc.query ? { query: doc.query } : {}),
    ...(doc.lane ? { headers: z.object({ prefer: z.string().optional().meta({ description: "`wait=N` (N ≤ 20 seconds): wait for the lane and answer 200 with the result or the error" }) }) } : {}),
    ...(doc.body ? { body: { required: true, content: { "application/json": { schema: doc.body } } } } : {}),
    ...(doc.rawBody ? { body: { required: true, description: "The raw file; any content type", content: { "*/*": { schema: z.string().meta({ format: "binary" }) } } } } : {}),
  };
  return {
    method: method.toLowerCase() as RouteConfig["method"],
    path: openApiPath(path),
    operationId: `${method.toLowerCase()}${openApiPath(path).replace(/\{(\w+)\}/g, "By_$1").replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())}`,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.tag],
    ...(isPublic ? { security: [] } : {}),
    request,
    responses: { ...successResponses(doc), ...errorResponses(doc, isPublic, schemaOf) },
  };
}

/**
 * The OpenAPI 3.1 document of the HTTP API: every documented route of infra/api-routes.ts, with
 * the handlers' zod schemas for its bodies. Written to schema/openapi.json by `npm run openapi`
 * (write-openapi.ts) and served from that file, so no Lambda carries the generator.
 */
export function buildOpenApiDocument(version = "0.1.0"): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer", bearerFormat: "JWT" });
  const publicPaths = new Set(HTTP_ROUTES.filter((r) => r.public).map((r) => routeKey(r.method, r.path)));
  const schemaOf = errorSchemas();
  for (const [key, doc] of Object.entries(ROUTE_DOCS)) {
    const [method = "", path = ""] = key.split(" ");
    registry.registerPath(routeConfig(method, path, doc, publicPaths.has(key), schemaOf));
  }
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Skills service",
      version,
      description: "Reusable SKILL.md capabilities for an LLM agent platform. The contract: API.md. Errors are `{\"error\":{\"code\",\"message\"}}`; each error answer lists its codes.",
    },
    servers: [{ url: "http://127.0.0.1:3000", description: "npm start" }],
    security: [{ bearer: [] }],
  });
  return JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
}
