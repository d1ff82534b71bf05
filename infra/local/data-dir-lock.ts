import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Another local stack (this or another process) already uses the data directory. */
class DataDirInUse extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`Data directory ${dataDir} is in use by process ${pid}; stop that local stack or choose another --data directory`);
  }
}

const LOCK_FILE = "local-stack.lock";

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * Claims `dataDir` for this process. Two dynalite instances on one LevelDB directory do not fail
 * cleanly (the second one throws asynchronously on its first request), so the stack refuses to
 * start instead. A lock left by a crashed process (its pid is gone) is taken over.
 */
export async function lockDataDir(dataDir: string, label = "local stack"): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await writeFile(path, `${process.pid}\n${label}\n`, { flag: "wx" });
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        await rm(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const pid = Number.parseInt((await readFile(path, "utf8").catch(() => "")).split("\n")[0] ?? "", 10);
      if (Number.isInteger(pid) && pid > 0 && (pid === process.pid || isAlive(pid))) throw new DataDirInUse(dataDir, pid);
      await rm(path, { force: true });
    }
  }
  throw new DataDirInUse(dataDir, -1);
}
