import { randomBytes } from "node:crypto";
import { chmod, lstat, mkdir, rename, unlink, writeFile } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { md5Etag } from "../shared/documents/document-body.js";
import { isValidDocumentPath } from "../shared/documents/document-path.js";
import { SKILLS_PREFIX } from "../shared/skills/skill-paths.js";
import { digestLabel, sha256Hex } from "../shared/skills/document-digest.js";
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
  /** Every file written, by path (`<name>/<path>`), with the SHA-256 of its bytes: what the service's digests say (issue 32). */
  files: { path: string; size: number; sha256: string }[];
  failed: { path: string; reason: string }[];
}

/** One line per pulled file, `sha256:<hex> <bytes> <name>/<path>`, so a CI job can compare it with the skill detail's or an MCP host's digests. */
export const pulledFileLine = (file: PullSummary["files"][number]): string => `${digestLabel(file.sha256)} ${file.size} ${file.path}`;

/**
 * The local path of one listed document, or why it is not written. The listing comes from the
 * network, so it is checked as strictly as the server checks a PUT, and the result must stay
 * below the folder even if the check were wrong. No segment may be hidden: the folder may be a
 * git work tree or an editor's workspace, where `.git/config` or `.vscode/tasks.json` runs code
 * (push never sends such files, and the service refuses them under `_vance/`).
 */
function localPathOf(root: string, documentPath: string): { ok: true; path: string; relative: string } | { ok: false; reason: string } {
  if (!documentPath.startsWith(SKILLS_PREFIX) || !isValidDocumentPath(documentPath))
    return { ok: false, reason: "not a safe document path below _vance/skills/" };
  const rest = documentPath.slice(SKILLS_PREFIX.length);
  if (!rest.includes("/")) return { ok: false, reason: "not inside a skill directory" };
  if (rest.split("/").some((segment) => segment.startsWith(".")))
    return { ok: false, reason: "has a hidden segment (starting with '.'); never written" };
  const path = resolve(root, ...rest.split("/"));
  if (!path.startsWith(root + sep)) return { ok: false, reason: "would be written outside the folder" };
  return { ok: true, path, relative: rest };
}

/**
 * Creates the directories between the folder and the file one at a time, refusing anything on
 * the way that is not a plain directory: a link there would send the write elsewhere.
 */
async function plainDirectories(root: string, relativePath: string): Promise<void> {
  let current = root;
  for (const segment of relativePath.split("/").slice(0, -1)) {
    current = join(current, segment);
    await mkdir(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
    const info = await lstat(current);
    if (info.isSymbolicLink()) throw new Error(`'${current}' is a symbolic link; not written through`);
    if (!info.isDirectory()) throw new Error(`'${current}' is not a directory`);
  }
}

/**
 * Writes the file without ever following a link: the bytes go to a new file created exclusively
 * (`wx` fails on anything already there, a link included), which then replaces the target's
 * directory entry. A symbolic link at the target is refused; a hard link is replaced, never
 * written through, so the file it shares data with keeps its bytes.
 */
async function writeWithoutLinks(path: string, bytes: Uint8Array): Promise<void> {
  const existing = await lstat(path).catch(() => undefined);
  if (existing?.isSymbolicLink()) throw new Error(`'${path}' is a symbolic link; not written through`);
  if (existing !== undefined && !existing.isFile()) throw new Error(`'${path}' is not a file`);
  const temporary = join(dirname(path), `.skills-pull-${randomBytes(6).toString("hex")}`);
  await writeFile(temporary, bytes, { flag: "wx" });
  try {
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** `skills pull`: every document of the level under `_vance/skills/`, byte for byte, into `<dir>/<name>/…`. */
export async function runPull(options: PullOptions): Promise<PullSummary> {
  const root = resolve(options.dir);
  await mkdir(root, { recursive: true });
  const run = limiter(options.concurrency ?? DEFAULT_PUSH_CONCURRENCY);
  const listed = await options.api.list(SKILLS_PREFIX);
  const summary: PullSummary = { written: 0, skills: 0, files: [], failed: [] };
  const skills = new Set<string>();
  await Promise.all(
    listed.map(async (doc) => {
      const local = localPathOf(root, doc.path);
      if (!local.ok) {
        summary.failed.push({ path: doc.path, reason: local.reason });
        return;
      }
      try {
        const { body: bytes, mode } = await run(async () =>
          options.api.getFile ? options.api.getFile(doc.path) : { body: await options.api.get(doc.path), mode: undefined },
        );
        // A document replaced between listing and reading is written as read, and said so.
        if (!doc.etag.includes("-") && md5Etag(bytes) !== doc.etag)
          options.io.err(`warning: ${doc.path} changed while pulling; written as read`);
        await plainDirectories(root, local.relative);
        await writeWithoutLinks(local.path, bytes);
        // The mode push found (API.md third round): a script comes back executable. A file written
        // anew gets the default mode, so the stored one is set explicitly (on the file just renamed in).
        if (mode !== undefined) await chmod(local.path, mode);
        summary.written += 1;
        summary.files.push({ path: local.relative, size: bytes.byteLength, sha256: sha256Hex(bytes) });
        skills.add(local.relative.slice(0, local.relative.indexOf("/")));
      } catch (error) {
        summary.failed.push({ path: doc.path, reason: error instanceof Error ? error.message : String(error) });
      }
    }),
  );
  summary.skills = skills.size;
  summary.failed.sort((a, b) => (a.path < b.path ? -1 : 1));
  summary.files.sort((a, b) => (a.path < b.path ? -1 : 1));
  return summary;
}
