import * as z from "zod/mini";
import {
  ActivateResult,
  ActiveSkills,
  CompleteBody,
  CompleteResult,
  ComposeBody,
  DocumentList,
  DocumentVersions,
  EffectiveSkills,
  Health,
  McpAnswer,
  McpMessage,
  Process,
  ProcessList,
  ProcessSkillRequest,
  RequestRecord,
  RestoreBody,
  SavedDocument,
  SkillDetail,
  SkillEvalsResult,
  SkillProblems,
  SkillSearchResult,
  SkillUsage,
  SpawnBody,
  ToolBody,
  ToolResult,
  Turn,
} from "../../contract/index.js";
import type { ErrorCode } from "../../contract/index.js";

type Schema = z.core.$ZodType;
type Query = z.ZodMiniObject;

/**
 * What the OpenAPI document says about each route, keyed `"<METHOD> <path>"` exactly as in
 * infra/api-routes.ts. Documenting a new route is one entry here: the generator adds the path
 * parameters, the bearer security, the error answers every route shares and their schemas.
 * Every body and answer is the contract's schema (contract/): this file only says which goes where.
 */
export interface RouteDoc {
  summary: string;
  description?: string;
  tag: "service" | "documents" | "skills" | "processes" | "steering" | "turns" | "tools" | "mcp";
  query?: Query;
  /** A JSON body, validated by the handler with this schema. */
  body?: Schema;
  /** A raw body of any content type (a document's file). */
  rawBody?: true;
  /** A lane call: `Prefer: wait=N`, 202 queued, 200 with this result. */
  lane?: Schema;
  /**
   * The success answers other than a lane call's. `schema: "raw"` is a body of any type; `json`
   * is a JSON answer the same status may give instead (a query that asks for it).
   */
  responses?: Record<number, { description: string; schema?: Schema | "raw"; json?: Schema }>;
  /** Codes this route answers beyond the ones every authenticated route may (COMMON_ERRORS). */
  errors?: ErrorCode[];
}

/** What any route behind the authorizer may answer, whatever it does. */
export const COMMON_ERRORS: readonly ErrorCode[] = [
  "UNAUTHENTICATED",
  "FORBIDDEN",
  "INVALID_REQUEST",
  "NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "PAYLOAD_TOO_LARGE",
  "TOO_MANY_REQUESTS",
  "SERVICE_UNAVAILABLE",
  "INTERNAL",
];

/** The errors of a lane call: the request's own, answered by a waited call or found by polling. */
const STEER_ERRORS: ErrorCode[] = [
  "PROCESS_NOT_FOUND",
  "PROCESS_ENDED",
  "REQUEST_CONFLICT",
  "SKILL_NOT_FOUND",
  "SKILL_NOT_ALLOWED",
  "SKILL_LOCKED",
  "SKILL_ARGUMENT_MISSING",
  "RECIPE_NOT_FOUND",
];

const projectIdQuery = z.object({
  projectId: z.optional(z.string().check(z.describe("Adds this project's level to the cascade (members only)"))),
});

export const ROUTE_DOCS: Record<string, RouteDoc> = {
  "GET /health": {
    tag: "service",
    summary: "Liveness: 200 once the lane worker is polling",
    responses: { 200: { description: "Up", schema: Health } },
  },
  "GET /openapi.json": {
    tag: "service",
    summary: "This document",
    responses: { 200: { description: "OpenAPI 3.1", schema: z.looseObject({ openapi: z.string() }) } },
  },

  "GET /brain/{tenant}/skills/effective": {
    tag: "skills",
    summary: "The effective skills: every level visible to the caller, deduplicated by name (inner wins), disabled removed, sorted by name",
    query: z.extend(projectIdQuery, {
      includeShadowed: z.optional(z.enum(["true", "false"]).check(z.describe("Adds `shadowed`: documents hidden by an inner level"))),
    }),
    responses: { 200: { description: "The list", schema: EffectiveSkills } },
  },
  "GET /brain/{tenant}/skills/effective/{name}": {
    tag: "skills",
    summary: "One resolved skill: its summary, body, tools, reference docs, scripts and files",
    query: projectIdQuery,
    responses: { 200: { description: "The skill", schema: SkillDetail } },
    errors: ["SKILL_NOT_FOUND"],
  },
  "GET /brain/{tenant}/skills/usage": {
    tag: "skills",
    summary:
      "Activation counters of the project's skills per UTC day, skill, level and path (explicit, trigger, model, recipe, spawn) and refused activations by error code",
    query: z.extend(projectIdQuery, {
      days: z.optional(z.string().check(z.describe("Days back, today included: 1 to 400 (default 30)"))),
      name: z.optional(z.string().check(z.describe("One skill only. Rows of USER skills are their owner's alone"))),
    }),
    responses: { 200: { description: "The counters", schema: SkillUsage } },
  },
  "GET /brain/{tenant}/skills/search": {
    tag: "skills",
    summary:
      "The caller's effective skills ranked by relevance to q (field-weighted BM25 over name, description, when_to_use, tags and the body's headings and tool names; typos tolerated), best first; ties by recent usage, then name",
    query: z.extend(projectIdQuery, {
      q: z
        .string()
        .check(
          z.describe('What to find, e.g. "post a message to Slack". Required, not blank; a long one is read as its first and last 4 KB'),
        ),
      limit: z.optional(z.string().check(z.describe("Results at most: 1 to 20 (default 5)"))),
    }),
    responses: { 200: { description: "The best matches, and how many skills matched", schema: SkillSearchResult } },
    errors: ["INVALID_REQUEST"],
  },
  "GET /brain/{tenant}/skills/effective/{name}/evals": {
    tag: "skills",
    summary:
      "Runs the skill's evals/triggers.yaml through the turn's trigger rule (no process: no recipe whitelist) under a 5 s budget: precision, recall and every case",
    query: projectIdQuery,
    responses: { 200: { description: "The evals' result", schema: SkillEvalsResult } },
    errors: ["SKILL_NOT_FOUND", "DOCUMENT_NOT_FOUND", "INVALID_DOCUMENT"],
  },
  "GET /brain/{tenant}/skills/problems": {
    tag: "skills",
    summary: "Every skill document the cascade skipped (severity error) or accepted with warnings",
    query: projectIdQuery,
    responses: { 200: { description: "The problems", schema: SkillProblems } },
  },
  "GET /brain/{tenant}/skills/active": {
    tag: "skills",
    summary: "The active skills of a process",
    query: z.object({ processId: z.string() }),
    responses: { 200: { description: "Active skills", schema: ActiveSkills } },
    errors: ["PROCESS_NOT_FOUND"],
  },

  "POST /brain/{tenant}/sessions/{sessionId}/processes": {
    tag: "processes",
    summary: "Spawns a process with a recipe (spec §7)",
    body: SpawnBody,
    responses: { 201: { description: "The new process", schema: Process } },
    errors: ["NAME_TAKEN", "RECIPE_NOT_FOUND", "SKILL_NOT_FOUND", "SKILL_ARGUMENT_MISSING"],
  },
  "GET /brain/{tenant}/sessions/{sessionId}/processes": {
    tag: "processes",
    summary: "The caller's processes of a session",
    responses: { 200: { description: "Processes", schema: ProcessList } },
  },
  "GET /brain/{tenant}/processes/{processId}": {
    tag: "processes",
    summary: "A process",
    responses: { 200: { description: "The process", schema: Process } },
    errors: ["PROCESS_NOT_FOUND"],
  },
  "GET /brain/{tenant}/processes/{processId}/requests/{requestId}": {
    tag: "steering",
    summary: "A lane request: QUEUED, DONE with its result, or FAILED with its error",
    responses: { 200: { description: "The request", schema: RequestRecord } },
    errors: ["PROCESS_NOT_FOUND", "REQUEST_NOT_FOUND"],
  },
  "GET /brain/{tenant}/processes/{processId}/composition": {
    tag: "turns",
    summary: "The Turn that would be composed now, changing nothing (preview)",
    query: z.object({
      message: z.optional(z.string()),
      explain: z.optional(z.enum(["all"]).check(z.describe("Also list not-matched triggers and left-out catalog candidates"))),
    }),
    responses: { 200: { description: "The Turn", schema: Turn } },
    errors: ["PROCESS_NOT_FOUND", "PROCESS_ENDED"],
  },
  "GET /brain/{tenant}/processes/{processId}/turns/{turnId}": {
    tag: "turns",
    summary: "A Turn as it was composed, activation included (kept at least 24 hours)",
    responses: { 200: { description: "The Turn", schema: Turn } },
    errors: ["PROCESS_NOT_FOUND", "REQUEST_NOT_FOUND"],
  },

  "POST /brain/{tenant}/processes/{processId}/skill": {
    tag: "steering",
    summary: "Steers the process's skills (ACTIVATE, CLEAR, CLEAR_ALL) through its lane",
    body: ProcessSkillRequest,
    lane: ActivateResult,
    errors: STEER_ERRORS,
  },
  "POST /brain/{tenant}/processes/{processId}/turns": {
    tag: "turns",
    summary: "Composes a turn through the lane; consumes the pending messages",
    body: ComposeBody,
    lane: Turn,
    errors: ["PROCESS_NOT_FOUND", "PROCESS_ENDED", "REQUEST_CONFLICT"],
  },
  "POST /brain/{tenant}/processes/{processId}/turns/{turnId}/complete": {
    tag: "turns",
    summary: "Completes a turn: clears its oneShot skills, runs the completion guard",
    body: CompleteBody,
    lane: CompleteResult,
    errors: ["PROCESS_NOT_FOUND", "PROCESS_ENDED", "REQUEST_CONFLICT", "REQUEST_NOT_FOUND"],
  },

  "GET /brain/{tenant}/projects/{project}/documents": {
    tag: "documents",
    summary: "The documents of a level (`{project}`: a project id, `_tenant` or `_user_<login>`)",
    query: z.object({ prefix: z.optional(z.string()) }),
    responses: { 200: { description: "Paths relative to the level", schema: DocumentList } },
  },
  "PUT /brain/{tenant}/projects/{project}/documents/{path+}": {
    tag: "documents",
    summary: "Saves a document; a SKILL.md or recipe that does not validate is refused with its problems",
    rawBody: true,
    responses: { 200: { description: "Saved, with warnings", schema: SavedDocument } },
    errors: ["INVALID_DOCUMENT"],
  },
  "GET /brain/{tenant}/projects/{project}/documents/{path+}": {
    tag: "documents",
    summary: "A document's raw body, with its ETag; `?versions` lists its versions (newest first), `?versionId=V` reads one",
    query: z.object({
      versions: z.optional(
        z
          .string()
          .check(
            z.describe("Present: answer {versions:[{versionId, etag, lastModified, size, writtenBy?}]} (newest first) instead of the body"),
          ),
      ),
      versionId: z.optional(z.string().check(z.describe("Read this version's body"))),
    }),
    responses: {
      200: { description: "The file, or with `?versions` its versions", schema: "raw", json: DocumentVersions },
      304: { description: "Not modified (If-None-Match)" },
    },
    errors: ["DOCUMENT_NOT_FOUND", "VERSIONS_UNAVAILABLE"],
  },
  "POST /brain/{tenant}/projects/{project}/documents/{path+}": {
    tag: "documents",
    summary:
      "`{path}:restore` with {versionId}: writes that version back as the newest, validated like a PUT (a refused restore changes nothing)",
    body: RestoreBody,
    responses: { 200: { description: "Restored, with warnings", schema: SavedDocument } },
    errors: ["INVALID_DOCUMENT", "DOCUMENT_NOT_FOUND", "VERSIONS_UNAVAILABLE"],
  },
  "DELETE /brain/{tenant}/projects/{project}/documents/{path+}": {
    tag: "documents",
    summary: "Deletes a document; the next lookup falls through to the next outer level",
    responses: { 204: { description: "Deleted" } },
    errors: ["DOCUMENT_NOT_FOUND"],
  },

  "POST /brain/{tenant}/processes/{processId}/tools/{toolName}": {
    tag: "tools",
    summary: "Invokes a tool the process has now (skill scripts, skill_read_file, skill_activate, manual_read, …)",
    body: ToolBody,
    responses: { 200: { description: "The tool's result", schema: ToolResult } },
    errors: [
      "PROCESS_NOT_FOUND",
      "PROCESS_ENDED",
      "TOOL_NOT_FOUND",
      "DOCUMENT_NOT_FOUND",
      "SKILL_NOT_FOUND",
      "SKILL_NOT_ALLOWED",
      "SKILL_ARGUMENT_MISSING",
    ],
  },
  "POST /brain/{tenant}/mcp": {
    tag: "mcp",
    summary:
      "A Model Context Protocol server (Streamable HTTP, stateless, JSON answers): prompts, completion, resources, and with processId the process's tools",
    description:
      "One JSON-RPC message or batch per request (initialize, prompts/list, prompts/get, completion/complete, resources/list, resources/read, resources/templates/list, tools/list, tools/call). Protocol errors are JSON-RPC errors in a 200 answer.",
    query: z.object({
      projectId: z.string().check(z.describe("The project whose cascade the server serves (required)")),
      processId: z.optional(z.string().check(z.describe("Adds that process's tools (the caller's own process, of that project)"))),
    }),
    body: McpMessage,
    responses: {
      200: { description: "The JSON-RPC answer", schema: McpAnswer },
      202: { description: "A notification or response was accepted" },
    },
    errors: ["PROCESS_NOT_FOUND"],
  },
  "GET /brain/{tenant}/mcp": {
    tag: "mcp",
    summary: "No standing stream in stateless mode: always 405 (list again to see changes)",
    query: z.object({
      projectId: z.string().check(z.describe("The project whose cascade the server serves (required)")),
      processId: z.optional(z.string().check(z.describe("Adds that process's tools (the caller's own process, of that project)"))),
    }),
    errors: [],
  },
  "DELETE /brain/{tenant}/mcp": {
    tag: "mcp",
    summary: "No sessions in stateless mode: always 405",
    query: z.object({
      projectId: z.string().check(z.describe("The project whose cascade the server serves (required)")),
      processId: z.optional(z.string().check(z.describe("Adds that process's tools (the caller's own process, of that project)"))),
    }),
    errors: [],
  },
};
