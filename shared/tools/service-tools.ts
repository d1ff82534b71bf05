import * as z from "zod/mini";
import "../../contract/locale.js";
import { DocumentNotFound, InvalidRequest } from "../errors.js";
import { strictUtf8 } from "../documents/document-body.js";
import { cascadeLayers } from "../documents/cascade-layers.js";
import type { SkillScope } from "../documents/cascade-scope.js";
import { sanitizeManualPath } from "../skills/manual-path.js";
import { scopeOf } from "../steering/steer-context.js";
import { SKILL_REFERENCE_DOC_TOOL } from "../turns/service-tool-specs.js";
import { activeReferences, readReference } from "./skill-reference-docs.js";
import { skillActivateTool } from "./skill-activate.js";
import { skillReadFileTool } from "./skill-read-file.js";
import { skillSearchTool } from "./skill-search.js";
import { serviceTool } from "./tool-invoker.js";
import type { ServiceTool, ToolCall } from "./tool-invoker.js";

/** A tool result travels in one Lambda response (6 MB) and often into a prompt: keep it well below. */
const MAX_MANUAL_BYTES = 1024 * 1024;
const MAX_MANUAL_LISTING = 1000;

const text = z.string().check(z.minLength(1), z.maxLength(1024));

/** `path` as `manual_read` takes it (spec §2 `manualPaths`: no `..`, no leading `/`, `\` becomes `/`). */
function manualPath(raw: string): string {
  const checked = sanitizeManualPath(raw);
  if (!checked.ok) throw new InvalidRequest(`Manual path ${JSON.stringify(raw.slice(0, 200))} ${checked.message}`);
  return checked.path;
}

const isBelow = (path: string, folder: string): boolean => path.startsWith(`${folder}/`);

function decoded(path: string, body: Uint8Array): string {
  if (body.byteLength > MAX_MANUAL_BYTES) throw new InvalidRequest(`Manual '${path}' is larger than ${MAX_MANUAL_BYTES} bytes`);
  const content = strictUtf8(body);
  if (content === undefined) throw new InvalidRequest(`Manual '${path}' is not UTF-8 text`);
  return content;
}

/** Manual documents resolve through the cascade like skills: the innermost layer that has the path wins. */
async function readManual(
  call: ToolCall<unknown>,
  path: string,
): Promise<{ path: string; source: SkillScope; content: string } | undefined> {
  for (const layer of cascadeLayers(scopeOf(call.process), call.sources)) {
    const doc = await layer.layer.read(path);
    if (doc) return { path, source: layer.source, content: decoded(path, doc.body) };
  }
  return undefined;
}

const manualReadTool = serviceTool({
  name: "manual_read",
  schema: z.strictObject({ path: text }),
  async invoke(call) {
    // Spec §2: an ON_DEMAND reference is retrieved with its title as the manual_read argument.
    const byTitle = (await activeReferences(call)).find((found) => found.ref.title === call.args.path);
    if (byTitle) {
      const content = await readReference(call, byTitle);
      if (content === undefined) throw new DocumentNotFound(byTitle.ref.file);
      return { skill: byTitle.skill.name, title: byTitle.ref.title, content };
    }
    const path = manualPath(call.args.path);
    if (!call.turn.manualPaths.some((folder) => isBelow(path, folder))) {
      throw new InvalidRequest(
        `'${path}' is neither below a manual folder of this process (${call.turn.manualPaths.join(", ") || "none"}) nor a reference title`,
      );
    }
    const manual = await readManual(call, path);
    if (!manual) throw new DocumentNotFound(path);
    return manual;
  },
});

const manualListTool = serviceTool({
  name: "manual_list",
  schema: z.strictObject({ path: z.optional(text) }),
  async invoke(call) {
    const folders = call.turn.manualPaths;
    let roots = folders;
    if (call.args.path !== undefined) {
      const wanted = manualPath(call.args.path);
      if (!folders.some((folder) => wanted === folder || isBelow(wanted, folder))) {
        throw new InvalidRequest(`'${wanted}' is not a manual folder of this process (${folders.join(", ") || "none"})`);
      }
      roots = [wanted];
    }
    const layers = cascadeLayers(scopeOf(call.process), call.sources);
    const documents = new Map<string, { path: string; source: SkillScope; size: number }>();
    let truncated = false;
    for (const root of roots) {
      for (const layer of layers) {
        for (const ref of await layer.layer.list(`${root}/`)) {
          if (documents.has(ref.path)) continue;
          if (documents.size >= MAX_MANUAL_LISTING) {
            truncated = true;
            break;
          }
          documents.set(ref.path, { path: ref.path, source: layer.source, size: ref.size });
        }
      }
    }
    const references = (await activeReferences(call))
      .filter((found) => found.ref.loadMode === "ON_DEMAND")
      .map(({ skill, ref }) => ({ skill: skill.name, title: ref.title, ...(ref.summary !== undefined ? { summary: ref.summary } : {}) }));
    const sorted = [...documents.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { folders: roots, documents: sorted, references, ...(truncated ? { truncated: true } : {}) };
  },
});

const skillReferenceDocTool = serviceTool({
  name: SKILL_REFERENCE_DOC_TOOL,
  schema: z.strictObject({ skill: text, title: text }),
  async invoke(call) {
    const found = (await activeReferences(call)).find((r) => r.skill.name === call.args.skill && r.ref.title === call.args.title);
    if (!found) throw new DocumentNotFound(`reference '${call.args.title}' of active skill '${call.args.skill}'`);
    const content = await readReference(call, found);
    if (content === undefined) throw new DocumentNotFound(found.ref.file);
    return { skill: found.skill.name, title: found.ref.title, content };
  },
});

/** The tools the service serves today; the skill-scripts issue adds script tools beside them. */
export const SERVICE_TOOLS: readonly ServiceTool[] = [
  manualReadTool,
  manualListTool,
  skillReferenceDocTool,
  skillReadFileTool,
  skillActivateTool,
  skillSearchTool,
];
