import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { FootFsRefused } from "../../shared/foot/foot-errors.js";
import { FootFileSystem } from "../../shared/foot/foot-fs.js";
import { SandboxPool } from "../../shared/sandbox/sandbox-pool.js";
import { runScript } from "../../shared/sandbox/script-runtime.js";

const pool = new SandboxPool({ size: 1 });
afterAll(() => pool.close());

let base: string;
let work: string;
let outside: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "foot-fs-"));
  work = join(base, "work");
  outside = join(base, "outside");
  mkdirSync(work);
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "top secret");
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

const failureOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
};

describe("FootFileSystem (vance.fs of the Foot client)", () => {
  it("reads, writes (with folders), lists and deletes below the working directory", async () => {
    // Prepare
    const fs = new FootFileSystem(work);

    // Act
    const missing = await fs.read("notes/a.md");
    const written = await fs.write("notes/a.md", "hello");
    await fs.write("top.txt", "t");
    const text = await fs.read("notes/a.md");
    const root = await fs.list("");
    const notes = await fs.list("notes");
    const removed = await fs.delete("notes/a.md");
    const removedAgain = await fs.delete("notes/a.md");

    // Assess
    expect(missing).toBeNull();
    expect(written).toEqual({ path: "notes/a.md", size: 5 });
    expect(text).toBe("hello");
    expect(root).toEqual([
      { path: "notes", type: "directory", size: 0 },
      { path: "top.txt", type: "file", size: 1 },
    ]);
    expect(notes).toEqual([{ path: "notes/a.md", type: "file", size: 5 }]);
    expect(removed).toBe(true);
    expect(removedAgain).toBe(false);
    expect(existsSync(join(work, "notes", "a.md"))).toBe(false);
  });

  it.each([
    ["a parent step", "../outside/secret.txt"],
    ["a parent step in the middle", "a/../../outside/secret.txt"],
    ["an absolute path", "/etc/passwd"],
    ["a drive letter", "C:/Windows/win.ini"],
    ["a home path", "~/.ssh/id_rsa"],
    ["a backslash", "..\\outside\\secret.txt"],
    ["a dot segment", "./secret.txt"],
    ["an empty segment", "a//b"],
    ["a NUL byte", "a\u0000b"],
  ])("refuses %s for every operation", async (_label, path) => {
    // Prepare
    const fs = new FootFileSystem(work);

    // Act
    const errors = await Promise.all([
      failureOf(fs.read(path)),
      failureOf(fs.write(path, "x")),
      failureOf(fs.list(path)),
      failureOf(fs.delete(path)),
    ]);

    // Assess
    for (const error of errors) expect(error).toBeInstanceOf(FootFsRefused);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("top secret");
  });

  it("refuses symbolic links inside the working directory, to files and to folders, for reading and writing", async () => {
    // Prepare
    symlinkSync(join(outside, "secret.txt"), join(work, "link.txt"));
    symlinkSync(outside, join(work, "linked-dir"));
    const fs = new FootFileSystem(work);

    // Act
    const readFile = await failureOf(fs.read("link.txt"));
    const readThroughDir = await failureOf(fs.read("linked-dir/secret.txt"));
    const writeFile = await failureOf(fs.write("link.txt", "pwned"));
    const writeThroughDir = await failureOf(fs.write("linked-dir/new.txt", "pwned"));
    const deleteThroughDir = await failureOf(fs.delete("linked-dir/secret.txt"));
    const listed = await fs.list("");

    // Assess
    for (const error of [readFile, readThroughDir, writeFile, writeThroughDir, deleteThroughDir]) {
      expect(error).toBeInstanceOf(FootFsRefused);
      expect((error as Error).message).not.toContain(base);
    }
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("top secret");
    expect(existsSync(join(outside, "new.txt"))).toBe(false);
    expect(listed).toEqual([
      { path: "link.txt", type: "symlink", size: 0 },
      { path: "linked-dir", type: "symlink", size: 0 },
    ]);
  });

  it("accepts a working directory that is itself reached through a link", async () => {
    // Prepare
    symlinkSync(work, join(base, "work-link"));
    const fs = new FootFileSystem(join(base, "work-link"));

    // Act
    await fs.write("a.txt", "through the link");

    // Assess
    expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("through the link");
  });

  it("bounds file sizes", async () => {
    // Prepare
    const fs = new FootFileSystem(work, { maxFileBytes: 10 });
    writeFileSync(join(work, "big.txt"), "x".repeat(11));

    // Act
    const tooBigRead = await failureOf(fs.read("big.txt"));
    const tooBigWrite = await failureOf(fs.write("new.txt", "y".repeat(11)));

    // Assess
    expect(tooBigRead).toBeInstanceOf(FootFsRefused);
    expect(tooBigWrite).toBeInstanceOf(FootFsRefused);
    expect(existsSync(join(work, "new.txt"))).toBe(false);
  });

  it("serves a sandboxed script as vance.fs, whose errors the script can catch", async () => {
    // Prepare
    const fs = new FootFileSystem(work);
    const source =
      "vance.fs.write('out/r.txt', args.text); let e; try { vance.fs.read('../outside/secret.txt') } catch (x) { e = x.code } ({ back: vance.fs.read('out/r.txt'), e })";

    // Act
    const run = await runScript({ source, args: { text: "from the script" }, bindings: { fs: fs.bindings() }, pool });

    // Assess
    expect(run.result).toEqual({ back: "from the script", e: "INVALID_REQUEST" });
  });
});
