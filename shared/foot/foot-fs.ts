import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, realpath, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { HostFunction } from "../sandbox/host-call.js";
import { FootFsRefused } from "./foot-errors.js";

/**
 * `vance.fs.read/write/list/delete` of a Foot client (spec §13.4): the local filesystem below
 * one working directory and nothing else. Paths are relative, written with `/`; absolute
 * paths, drive letters, backslashes, `.`/`..` and empty segments are refused rather than
 * normalized, and no component below the root may be a symbolic link (a link could point
 * anywhere). The final open uses O_NOFOLLOW, so a link swapped in after the check is not
 * followed either. Errors name the relative path only, never the machine's directories.
 */
export interface FootFsLimits {
  maxFileBytes: number;
  maxListEntries: number;
  maxPathLength: number;
}

const DEFAULT_FOOT_FS_LIMITS: FootFsLimits = { maxFileBytes: 1024 * 1024, maxListEntries: 1_000, maxPathLength: 1_024 };

interface FootFsEntry {
  path: string;
  type: "file" | "directory" | "symlink" | "other";
  size: number;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

const codeOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string"
    ? (error as { code: string }).code
    : undefined;

export class FootFileSystem {
  private readonly limits: FootFsLimits;
  private root: string | undefined;

  constructor(
    private readonly workDir: string,
    limits: Partial<FootFsLimits> = {},
  ) {
    this.limits = { ...DEFAULT_FOOT_FS_LIMITS, ...limits };
  }

  /** The root's real path, resolved once: the working directory itself may sit behind a link. */
  private async realRoot(): Promise<string> {
    this.root ??= await realpath(this.workDir);
    return this.root;
  }

  /** Checks `raw` and returns its segments; throws FootFsRefused. `""` (the root) only where allowed. */
  private segments(raw: unknown, what: string, allowRoot = false): string[] {
    if (typeof raw !== "string") throw new FootFsRefused(`vance.fs.${what}: the path must be a string`);
    if (raw === "" && allowRoot) return [];
    const shown = JSON.stringify(raw.slice(0, 120));
    if (raw === "" || raw.length > this.limits.maxPathLength)
      throw new FootFsRefused(`vance.fs.${what}: the path must have 1 to ${this.limits.maxPathLength} characters`);
    if (CONTROL.test(raw)) throw new FootFsRefused(`vance.fs.${what}: ${shown} contains control characters`);
    if (raw.includes("\\")) throw new FootFsRefused(`vance.fs.${what}: ${shown} must use '/' as separator`);
    if (raw.startsWith("/") || /^[A-Za-z]:/.test(raw) || raw.startsWith("~"))
      throw new FootFsRefused(`vance.fs.${what}: ${shown} must be relative to the working directory`);
    const parts = raw.split("/");
    if (parts.some((part) => part === "" || part === "." || part === "..")) {
      throw new FootFsRefused(`vance.fs.${what}: ${shown} must not contain '.', '..' or empty segments`);
    }
    return parts;
  }

  /**
   * The absolute path for `parts` below the root, refusing any existing component that is a
   * symbolic link. The first component that does not exist ends the walk (`exists: false`).
   */
  private async resolve(parts: readonly string[], what: string, shown: string): Promise<{ absolute: string; exists: boolean }> {
    let current = await this.realRoot();
    for (const [i, part] of parts.entries()) {
      current = join(current, part);
      let stats;
      try {
        stats = await lstat(current);
      } catch (error) {
        if (codeOf(error) === "ENOENT") return { absolute: join(current, ...parts.slice(i + 1)), exists: false };
        throw new FootFsRefused(`vance.fs.${what}: ${shown} cannot be read`, { cause: error });
      }
      if (stats.isSymbolicLink()) throw new FootFsRefused(`vance.fs.${what}: ${shown} goes through a symbolic link`);
      if (i < parts.length - 1 && !stats.isDirectory()) throw new FootFsRefused(`vance.fs.${what}: ${shown} is below a file`);
    }
    return { absolute: current, exists: true };
  }

  /** The file's text, or null when there is none. */
  async read(raw: unknown): Promise<string | null> {
    const parts = this.segments(raw, "read");
    const shown = JSON.stringify(parts.join("/"));
    const { absolute, exists } = await this.resolve(parts, "read", shown);
    if (!exists) return null;
    let handle;
    try {
      handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (error) {
      throw new FootFsRefused(`vance.fs.read: ${shown} cannot be opened`, { cause: error });
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw new FootFsRefused(`vance.fs.read: ${shown} is not a file`);
      if (stats.size > this.limits.maxFileBytes)
        throw new FootFsRefused(`vance.fs.read: ${shown} is larger than ${this.limits.maxFileBytes} bytes`);
      try {
        return new TextDecoder("utf-8", { fatal: true }).decode(await handle.readFile());
      } catch (error) {
        throw new FootFsRefused(`vance.fs.read: ${shown} is not UTF-8 text`, { cause: error });
      }
    } finally {
      await handle.close();
    }
  }

  /** Creates or replaces a file (and the directories above it). */
  async write(raw: unknown, content: unknown): Promise<{ path: string; size: number }> {
    const parts = this.segments(raw, "write");
    const path = parts.join("/");
    const shown = JSON.stringify(path);
    if (typeof content !== "string") throw new FootFsRefused("vance.fs.write: the content must be a string");
    const bytes = Buffer.byteLength(content, "utf8");
    if (bytes > this.limits.maxFileBytes)
      throw new FootFsRefused(`vance.fs.write: ${shown} would be larger than ${this.limits.maxFileBytes} bytes`);
    await this.resolve(parts, "write", shown);
    // Directories one by one, each checked again: none may be (or become) a link.
    let dir = await this.realRoot();
    for (const part of parts.slice(0, -1)) {
      dir = join(dir, part);
      try {
        await mkdir(dir);
      } catch (error) {
        if (codeOf(error) !== "EEXIST") throw new FootFsRefused(`vance.fs.write: cannot create the folders of ${shown}`, { cause: error });
      }
      const stats = await lstat(dir);
      if (stats.isSymbolicLink() || !stats.isDirectory())
        throw new FootFsRefused(`vance.fs.write: ${shown} goes through a symbolic link or a file`);
    }
    let handle;
    try {
      handle = await open(
        join(dir, parts.at(-1)!),
        constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
        0o644,
      );
    } catch (error) {
      throw new FootFsRefused(`vance.fs.write: ${shown} cannot be written`, { cause: error });
    }
    try {
      await handle.writeFile(content, "utf8");
    } finally {
      await handle.close();
    }
    return { path, size: bytes };
  }

  /** The entries of a folder (the working directory itself for `""` or nothing), by name. */
  async list(raw: unknown): Promise<FootFsEntry[]> {
    const parts = this.segments(raw ?? "", "list", true);
    const prefix = parts.join("/");
    const shown = JSON.stringify(prefix);
    const { absolute, exists } = await this.resolve(parts, "list", shown);
    if (!exists) return [];
    let names: string[];
    try {
      names = (await readdir(absolute)).sort();
    } catch (error) {
      throw new FootFsRefused(`vance.fs.list: ${shown} is not a folder`, { cause: error });
    }
    const entries: FootFsEntry[] = [];
    for (const name of names.slice(0, this.limits.maxListEntries)) {
      const stats = await lstat(join(absolute, name)).catch(() => undefined);
      if (!stats) continue;
      const type = stats.isSymbolicLink() ? "symlink" : stats.isFile() ? "file" : stats.isDirectory() ? "directory" : "other";
      entries.push({ path: prefix === "" ? name : `${prefix}/${name}`, type, size: type === "file" ? stats.size : 0 });
    }
    return entries;
  }

  /** Removes a file; false when there was none. Folders and links are refused. */
  async delete(raw: unknown): Promise<boolean> {
    const parts = this.segments(raw, "delete");
    const shown = JSON.stringify(parts.join("/"));
    const { absolute, exists } = await this.resolve(parts, "delete", shown);
    if (!exists) return false;
    if (!(await lstat(absolute)).isFile()) throw new FootFsRefused(`vance.fs.delete: ${shown} is not a file`);
    await unlink(absolute);
    return true;
  }

  bindings(): Record<"read" | "write" | "list" | "delete", HostFunction> {
    return {
      read: ([path]) => this.read(path),
      write: ([path, content]) => this.write(path, content),
      list: ([path]) => this.list(path),
      delete: ([path]) => this.delete(path),
    };
  }
}
