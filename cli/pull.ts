import { chmod, lstat, mkdir, writeFile } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { md5Etag } from "../shared/documents/document-body.js";
import { isValidDocumentPath } from "../shared/documents/document-path.js";
import { SKILLS_PREFIX } from "../shared/skills/skill-paths.js";
import { limiter } from "./bounded.js";
import type { DocumentsApi } from "./documents-client.js";
import { DEFAULT_PUSH_CONCURRENCY } from "./push.js";

export interface PullOptions {
  dir: string;
  api: DocumentsApi;
  concurrency?: number;
  io: { err: (line: string) => void };
}

export interface PullSummary {
  written: number;
  skills: number;
  failed: { path: string; reason: string }[];
}

/**
 * The local path of one listed document, or why it is not written. The listing comes from the
 * network, so it is checked as strictly as the server checks a PUT, and the result must stay
 * below the folder even if the check were wrong.
 */
function localPathOf(root: string, documentPath: string): { ok: true; path: string; relative: string } | { ok: false; reason: string } {
  if (!documentPath.startsWith(SKILLS_PREFIX) || !isValidDocumentPath(documentPath)) return { ok: false, reason: "not a safe document path below _vance/skills/" };
  const rest = documentPath.slice(SKILLS_PREFIX.length);
  if (!rest.includes("/")) return { ok: false, reason: "not inside a skill directory" };
  const path = resolve(root, ...rest.split("/"));
  if (!path.startsWith(root + sep)) return { ok: false, reason: "would be written outside the folder" };
  return { ok: true, path, relative: rest };
}

/** A link anywhere between the folder and the file would send the write elsewhere: refuse it. */
async function assertNoLinks(root: string, relativePath: string): Promise<void> {
  let current = root;
  for (const segment of relativePath.split("/")) {
    current = join(current, segment);
    const info = await lstat(current).catch(() => undefined);
    if (!info) return;
    if (info.isSymbolicLink()) throw new Error(`'${current}' is a symbolic link; not written through`);
  }
}

/** `skills pull`: every document of the level under `_vance/skills/`, byte for byte, into `<dir>/<name>/…`. */
export async function runPull(options: PullOptions): Promise<PullSummary> {
  const root = resolve(options.dir);
  await mkdir(root, { recursive: true });
  const run = limiter(options.concurrency ?? DEFAULT_PUSH_CONCURRENCY);
  const listed = await options.api.list(SKILLS_PREFIX);
  const summary: PullSummary = { written: 0, skills: 0, failed: [] };
  const skills = new Set<string>();
  await Promise.all(
    listed.map(async (doc) => {
      const local = localPathOf(root, doc.path);
      if (!local.ok) {
        summary.failed.push({ path: doc.path, reason: local.reason });
        return;
      }
      try {
        const { body: bytes, mode } = await run(async () => (options.api.getFile ? options.api.getFile(doc.path) : { body: await options.api.get(doc.path), mode: undefined }));
        // A document replaced between listing and reading is written as read, and said so.
        if (!doc.etag.includes("-") && md5Etag(bytes) !== doc.etag) options.io.err(`warning: ${doc.path} changed while pulling; written as read`);
        await assertNoLinks(root, local.relative);
        await mkdir(resolve(local.path, ".."), { recursive: true });
        await writeFile(local.path, bytes);
        // The mode push found (API.md third round): a script comes back executable. writeFile's
        // own mode applies only to a new file, so an overwritten one is set explicitly.
        if (mode !== undefined) await chmod(local.path, mode);
        summary.written += 1;
        skills.add(local.relative.slice(0, local.relative.indexOf("/")));
      } catch (error) {
        summary.failed.push({ path: doc.path, reason: error instanceof Error ? error.message : String(error) });
      }
    }),
  );
  summary.skills = skills.size;
  summary.failed.sort((a, b) => (a.path < b.path ? -1 : 1));
  return summary;
}
