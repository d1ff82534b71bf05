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
import type { CallToolResult, ServerResult } from "@modelcontextprotocol/sdk/types.js";
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
import {
  listedPath,
  MAX_MCP_RESOURCE_BYTES,
  parseSkillFileUri,
  resourceContents,
  SKILL_FILE_TEMPLATE,
  skillFileUri,
  skillResources,
} from "./mcp-resources.js";
import {
  CACHE_HINT,
  directoryChildren,
  GetSkillRequestSchema,
  ListSkillsRequestSchema,
  parseDirectoryUri,
  ReadResourceDirectoryRequestSchema,
  skillEntry,
  SKILLS_EXTENSION,
  SKILLS_PAGE_SIZE,
  skillNameOfUri,
  SKIPPED_META,
} from "./mcp-skills.js";
import type { SkillEntry } from "./mcp-skills.js";
import { mapWithConcurrency } from "../../documents/cascade-layers.js";
import { SkillManifests } from "../../skills/skill-manifests.js";
import { skillMdRendition } from "../../skills/skill-md-rendition.js";
import { SKILL_DOCUMENT_NAME } from "../../skills/skill-paths.js";

export const MCP_SERVER_NAME = "skills-service";
export const MCP_SERVER_VERSION = "0.1.0";

export interface McpServerDeps {
  app: Pick<SkillsApp, "listEffective" | "sources" | "recipes" | "turns">;
  renderer: TemplateRenderer;
  tools: Pick<ToolInvoker, "invoke" | "serves">;
  /**
   * Manifests for the Skills extension, built once per container so digests taken from bytes are
   * kept between requests (with the table's stored digests). Without one, each request hashes anew.
   */
  manifests?: SkillManifests | undefined;
}

/** Manifests built at once for one `skills/list` page (each a Query, or reads where no digest is stored). */
const MANIFEST_CONCURRENCY = 8;

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
  `Skills extension (${SKILLS_EXTENSION}): skills/list, skills/get and resources/directory/read; a SKILL.md is served with name: as its first frontmatter key.`,
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
      capabilities: {
        prompts: { listChanged: false },
        resources: { listChanged: false, subscribe: false },
        tools: { listChanged: false },
        completions: {},
        // SEP-2640: a host that does not know the extension ignores this and sees prompts and resources as before.
        extensions: { [SKILLS_EXTENSION]: { directoryRead: true } },
      },
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
    if (skill === undefined)
      throw new McpError(
        ErrorCode.InvalidParams,
        `No prompt '${name.slice(0, 128)}': no visible, enabled, user-invocable skill of that name`,
      );
    return skill;
  };
  const manifests = deps.manifests ?? new SkillManifests({ loader });
  const manifestScope = pinnedScope ?? scope;
  const visibleNamed = async (name: string): Promise<ListedSkill | undefined> => (await visible()).find((s) => s.name === name);
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
      const text = await renderPrompt(
        skill,
        request.params.arguments,
        deps.renderer,
        {
          section: async () => (process ? turnRenderContext(process, await recipe(), undefined) : { params: {} }),
          activation: async () => (process ? activationRenderContext(process, await recipe()) : { params: {} }),
        },
        { tenant: identity.tenant },
      );
      return { description: skill.description, messages: [{ role: "user" as const, content: { type: "text" as const, text } }] };
    }),
  );

  onRequest(server, CompleteRequestSchema, async (request) =>
    mapped(async () => {
      const { ref, argument } = request.params;
      if (ref.type === "ref/prompt") return { completion: completeArgument(await promptNamed(ref.name), argument.name, argument.value) };
      if (ref.uri !== SKILL_FILE_TEMPLATE.uriTemplate)
        throw new McpError(ErrorCode.InvalidParams, `No resource template '${ref.uri.slice(0, 200)}'`);
      const skills = await visible();
      if (argument.name === "name")
        return {
          completion: completeFrom(
            skills.map((s) => s.name),
            argument.value,
          ),
        };
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
      if (size > MAX_MCP_RESOURCE_BYTES)
        throw new McpError(
          ErrorCode.InvalidParams,
          `Resource '${uri.slice(0, 200)}' is ${size} bytes, more than the ${MAX_MCP_RESOURCE_BYTES} one read returns`,
        );
      // Layer pinning: the file comes from the level that provided this skill's SKILL.md.
      const doc = await loader.readSkillFileDocument(scope, skill, listed);
      if (!doc) throw new McpError(RESOURCE_NOT_FOUND, `Skill '${skill.name}' has no file '${listed}'`);
      // The Skills extension's rendition (name: added), the bytes its manifest's digest covers; a SKILL.md it cannot serve as a skill is read as stored.
      const rendition = listed === SKILL_DOCUMENT_NAME ? skillMdRendition(skill.name, doc.body) : undefined;
      const body = rendition !== undefined && !("refusal" in rendition) ? rendition.bytes : doc.body;
      return { contents: [resourceContents(uri, listed, body)] };
    }, RESOURCE_NOT_FOUND),
  );

  onRequest(server, ListSkillsRequestSchema, async (request) =>
    mapped(async () => {
      // Paged over the visible skills, then each entry built: a skill the extension cannot serve leaves its page one entry short, and says why.
      const { items, nextCursor } = page(await visible(), request.params?.cursor, SKILLS_PAGE_SIZE);
      const outcomes = await mapWithConcurrency(items, MANIFEST_CONCURRENCY, (skill) => manifests.manifest(manifestScope, skill));
      const skills: SkillEntry[] = [];
      const skipped: { name: string; uri: string; reason: string }[] = [];
      outcomes.forEach((outcome, i) => {
        const name = items[i]!.name;
        if ("manifest" in outcome) skills.push(skillEntry(name, outcome.manifest));
        else skipped.push({ name, uri: skillFileUri(name, SKILL_DOCUMENT_NAME), reason: outcome.refusal });
      });
      return {
        resultType: "complete",
        skills,
        ...(nextCursor !== undefined ? { nextCursor } : {}),
        ...CACHE_HINT,
        ...(skipped.length > 0 ? { _meta: { [SKIPPED_META]: skipped } } : {}),
      } as ServerResult;
    }),
  );

  onRequest(server, GetSkillRequestSchema, async (request) =>
    mapped(async () => {
      const { uri } = request.params;
      const skill = await visibleNamed(skillNameOfUri(uri));
      if (skill === undefined) throw new McpError(ErrorCode.InvalidParams, `No skill is served at ${uri.slice(0, 200)}`);
      const outcome = await manifests.manifest(manifestScope, skill);
      if (!("manifest" in outcome))
        throw new McpError(ErrorCode.InvalidParams, `No skill is served at ${uri.slice(0, 200)}: ${outcome.refusal}`);
      return { resultType: "complete", skill: skillEntry(skill.name, outcome.manifest), ...CACHE_HINT } as ServerResult;
    }),
  );

  onRequest(server, ReadResourceDirectoryRequestSchema, async (request) =>
    mapped(async () => {
      const { uri, cursor } = request.params;
      const { skill: name, directory } = parseDirectoryUri(uri);
      const skill = await visibleNamed(name);
      const children = skill === undefined ? undefined : directoryChildren(skill, directory);
      if (children === undefined)
        throw new McpError(ErrorCode.InvalidParams, `${uri.slice(0, 200)} is not a directory resource of a visible skill`);
      const { items, nextCursor } = page(children, cursor);
      return { resultType: "complete", resources: items, ...(nextCursor !== undefined ? { nextCursor } : {}) } as ServerResult;
    }),
  );

  onRequest(server, ListToolsRequestSchema, async (request) =>
    mapped(async () => {
      if (process === undefined) return { tools: [] };
      const turn = await deps.app.turns.preview(process, undefined, undefined, user);
      // Only tools the service runs: an engine's own (web_search…) would answer TOOL_NOT_FOUND here.
      const tools = turn.toolSpecs
        .filter((t) => deps.tools.serves(t.name))
        .map((t) => ({ name: t.name, description: t.description, inputSchema: { ...t.inputSchema, type: "object" as const } }));
      const { items, nextCursor } = page(tools, request.params?.cursor);
      return { tools: items, ...(nextCursor !== undefined ? { nextCursor } : {}) };
    }),
  );

  onRequest(server, CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const failed = (code: string, message: string): CallToolResult => ({
      isError: true,
      content: [{ type: "text", text: `${code}: ${message}` }],
    });
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
