import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Identity } from "../../auth/identity.js";
import { SkillsError } from "../../errors.js";
import type { LaneUser } from "../../lanes/lane-message.js";
import type { Process } from "../../processes/process.js";
import type { ListedSkill, ResolvedSkill } from "../../skills/resolved-skill.js";
import { SkillLoader } from "../../skills/skill-loader.js";
import { isAllowedByRecipe } from "../../steering/active-skill-rules.js";
import { activationRenderContext, turnRenderContext } from "../../steering/render-context.js";
import type { TemplateRenderer } from "../../templates/template-renderer.js";
import type { ToolInvoker } from "../../tools/tool-invoker.js";
import type { SkillsApp } from "../skills-app.js";
import { refusingJsonSchemaValidator } from "./mcp-json-schema-validator.js";
import { mapped, onRequest, page, RESOURCE_NOT_FOUND } from "./mcp-protocol.js";
import { completeArgument, completeFrom, renderPrompt, toPrompt } from "./mcp-prompts.js";
import { listedPath, MAX_MCP_RESOURCE_BYTES, parseSkillFileUri, resourceContents, SKILL_FILE_TEMPLATE, skillResources } from "./mcp-resources.js";

export const MCP_SERVER_NAME = "skills-service";
export const MCP_SERVER_VERSION = "0.1.0";

export interface McpServerDeps {
  app: Pick<SkillsApp, "listEffective" | "sources" | "recipes" | "turns">;
  renderer: TemplateRenderer;
  tools: Pick<ToolInvoker, "invoke" | "serves">;
}

/** Who asks, and for which project (and process): checked by the caller before the server is built. */
export interface McpCaller {
  identity: Identity;
  user: LaneUser;
  projectId: string;
  process?: Process | undefined;
}

const INSTRUCTIONS = [
  "This server serves the skills of one project of the Skills service, with the cascade applied (your own, the project's, the tenant's, the bundled ones; inner levels win).",
  "Prompts: each user-invocable skill; getting one renders it with its arguments (a shot skill as its turn prompt, any other as its skill section).",
  "Resources: every file of every visible skill as skill://{name}/{path}, SKILL.md included.",
  "Tools (only with ?processId=): the tools the process has now; call skill_activate to activate a skill on the process, then its scripts and skill_read_file become tools.",
].join("\n");

/**
 * One MCP server for one request (stateless Streamable HTTP): every handler reads through the
 * SkillsApp facade, so the cascade, the warm catalogue and the authorization it applies are the
 * HTTP API's. Nothing is kept between requests.
 */
export function createMcpServer(deps: McpServerDeps, caller: McpCaller): Server {
  const server = new Server(
    { name: MCP_SERVER_NAME, title: "Skills", version: MCP_SERVER_VERSION },
    {
      capabilities: { prompts: { listChanged: false }, resources: { listChanged: false, subscribe: false }, tools: { listChanged: false }, completions: {} },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: refusingJsonSchemaValidator,
    },
  );
  const loader = new SkillLoader(deps.app.sources);
  const { identity, user, projectId, process } = caller;
  const scope = { tenantId: identity.tenant, userId: user.login, projectId };

  /** Enabled skills of the cascade, within the process's recipe when there is one. */
  // A process's recipe pins (skillVersions) apply to its prompts as to its turns.
  const pinnedScope = process?.skillVersions !== undefined ? { ...scope, skillVersions: process.skillVersions } : undefined;
  const visible = async (): Promise<ListedSkill[]> => {
    const skills = pinnedScope ? await loader.listAvailable(pinnedScope) : await deps.app.listEffective(identity.tenant, user, projectId);
    return process === undefined ? skills : skills.filter((s) => isAllowedByRecipe(process, s.name));
  };
  const prompts = async (): Promise<ListedSkill[]> => (await visible()).filter((s) => s.userInvocable);
  /** The prompt's skill with its body (a listing entry may have none). */
  const promptNamed = async (name: string): Promise<ResolvedSkill> => {
    const listed = (await prompts()).find((s) => s.name === name);
    const skill = listed && (await loader.complete(pinnedScope ?? scope, listed));
    if (skill === undefined) throw new McpError(ErrorCode.InvalidParams, `No prompt '${name.slice(0, 128)}': no visible, enabled, user-invocable skill of that name`);
    return skill;
  };
  const recipe = async () => (process === undefined ? undefined : deps.app.recipes.load(scope, process.recipe));

  onRequest(server, ListPromptsRequestSchema, async (request) =>
    mapped(async () => {
      const { items, nextCursor } = page((await prompts()).map(toPrompt), request.params?.cursor);
      return { prompts: items, ...(nextCursor !== undefined ? { nextCursor } : {}) };
    }),
  );

  onRequest(server, GetPromptRequestSchema, async (request) =>
    mapped(async () => {
      const skill = await promptNamed(request.params.name);
      const text = await renderPrompt(skill, request.params.arguments, deps.renderer, {
        section: async () => (process ? turnRenderContext(process, await recipe(), undefined) : { params: {} }),
        activation: async () => (process ? activationRenderContext(process, await recipe()) : { params: {} }),
      });
      return { description: skill.description, messages: [{ role: "user" as const, content: { type: "text" as const, text } }] };
    }),
  );

  onRequest(server, CompleteRequestSchema, async (request) =>
    mapped(async () => {
      const { ref, argument } = request.params;
      if (ref.type === "ref/prompt") return { completion: completeArgument(await promptNamed(ref.name), argument.name, argument.value) };
      if (ref.uri !== SKILL_FILE_TEMPLATE.uriTemplate) throw new McpError(ErrorCode.InvalidParams, `No resource template '${ref.uri.slice(0, 200)}'`);
      const skills = await visible();
      if (argument.name === "name") return { completion: completeFrom(skills.map((s) => s.name), argument.value) };
      const skill = skills.find((s) => s.name === request.params.context?.arguments?.name);
      const paths = skill === undefined ? [] : skillResources(skill).map((r) => r.name.slice(skill.name.length + 1));
      return { completion: completeFrom(paths, argument.value) };
    }),
  );

  onRequest(server, ListResourcesRequestSchema, async (request) =>
    mapped(async () => {
      const { items, nextCursor } = page((await visible()).flatMap(skillResources), request.params?.cursor);
      return { resources: items, ...(nextCursor !== undefined ? { nextCursor } : {}) };
    }),
  );

  onRequest(server, ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [SKILL_FILE_TEMPLATE] }));

  onRequest(server, ReadResourceRequestSchema, async (request) =>
    mapped(async () => {
      const { uri } = request.params;
      const { skill: name, path } = parseSkillFileUri(uri);
      const skill = (await visible()).find((s) => s.name === name);
      if (skill === undefined) throw new McpError(RESOURCE_NOT_FOUND, `No visible skill '${name.slice(0, 128)}'`);
      const listed = listedPath(skill, path);
      // Refused from the listing's size before any byte is read (resourceContents checks the bytes too).
      const size = skill.files?.find((f) => f.path === listed)?.size ?? 0;
      if (size > MAX_MCP_RESOURCE_BYTES) throw new McpError(ErrorCode.InvalidParams, `Resource '${uri.slice(0, 200)}' is ${size} bytes, more than the ${MAX_MCP_RESOURCE_BYTES} one read returns`);
      // Layer pinning: the file comes from the level that provided this skill's SKILL.md.
      const doc = await loader.readSkillFileDocument(scope, skill, listed);
      if (!doc) throw new McpError(RESOURCE_NOT_FOUND, `Skill '${skill.name}' has no file '${listed}'`);
      return { contents: [resourceContents(uri, listed, doc.body)] };
    }, RESOURCE_NOT_FOUND),
  );

  onRequest(server, ListToolsRequestSchema, async (request) =>
    mapped(async () => {
      if (process === undefined) return { tools: [] };
      const turn = await deps.app.turns.preview(process, undefined, undefined, user);
      // Only tools the service runs: an engine's own (web_search…) would answer TOOL_NOT_FOUND here.
      const tools = turn.toolSpecs.filter((t) => deps.tools.serves(t.name)).map((t) => ({ name: t.name, description: t.description, inputSchema: { ...t.inputSchema, type: "object" as const } }));
      const { items, nextCursor } = page(tools, request.params?.cursor);
      return { tools: items, ...(nextCursor !== undefined ? { nextCursor } : {}) };
    }),
  );

  onRequest(server, CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const failed = (code: string, message: string): CallToolResult => ({ isError: true, content: [{ type: "text", text: `${code}: ${message}` }] });
    if (process === undefined) return failed("INVALID_REQUEST", "Tools need a process: connect with ?processId=");
    try {
      const outcome = await deps.tools.invoke(process, user, request.params.name, request.params.arguments ?? {});
      return {
        content: [{ type: "text", text: JSON.stringify(outcome.result ?? null) }],
        ...(outcome.logs !== undefined ? { _meta: { logs: outcome.logs } } : {}),
      };
    } catch (error) {
      // The API's error, in the result the model reads (MCP: tool errors are results, not protocol errors).
      if (error instanceof SkillsError) return failed(error.code, error.message);
      throw error;
    }
  });

  return server;
}
