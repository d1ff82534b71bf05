import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * `skills-service/client` as a consumer gets it: the build `npm install` runs (`prepare` →
 * `npm run build:client`), imported by plain Node from the checkout (no TypeScript loader, no
 * `source` condition), needing no package but the ones package.json declares.
 */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ENTRY = join(ROOT, "dist/client/client/index.js");
const SOURCES = ["client", "contract"].map((folder) => join(ROOT, folder));

const newestSource = (): number =>
  Math.max(
    ...SOURCES.flatMap((folder) => readdirSync(folder).map((name) => statSync(join(folder, name)).mtimeMs)),
    statSync(join(ROOT, "tsconfig.client.json")).mtimeMs,
  );

/** Plain Node: NODE_OPTIONS cleared, so no loader (tsx, vitest's) comes along. */
function plainNode(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env = { ...process.env, NODE_OPTIONS: "" };
  const result = spawnSync(process.execPath, args, { cwd: ROOT, env, encoding: "utf8", timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The bare specifiers (packages) the built entry reaches at run time, following its relative imports. */
function runtimePackages(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(
      /^\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|^\s*import\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/gm,
    )) {
      const specifier = (match[1] ?? match[2] ?? match[3]) as string;
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier));
      else packages.add(specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : (specifier.split("/")[0] as string));
    }
  };
  visit(entry);
  return packages;
}

describe("the installable client (skills-service/client)", () => {
  beforeAll(() => {
    // Build only when missing or older than its sources: `npm ci` already ran it once.
    if (existsSync(ENTRY) && statSync(ENTRY).mtimeMs >= newestSource()) return;
    const build = spawnSync("npm", ["run", "--silent", "build:client"], { cwd: ROOT, encoding: "utf8", timeout: 240_000 });
    expect(build.status, build.stdout + build.stderr).toBe(0);
  });

  it("imports in plain Node 20 from the checkout and exports the client, its errors and the level names", () => {
    // Act
    const probe = plainNode(["-e", "import('skills-service/client').then((m) => console.log(JSON.stringify(Object.keys(m).sort())))"]);

    // Assess
    expect(probe.stderr).toBe("");
    expect(probe.status).toBe(0);
    const names = JSON.parse(probe.stdout) as string[];
    expect(names).toEqual(
      expect.arrayContaining([
        "SkillsClient",
        "subscribe",
        "HttpTransport",
        "SkillsApiError",
        "NotFoundError",
        "API_ERROR_STATUS",
        "TENANT_PROJECT",
        "SKILL_SOURCES",
      ]),
    );
  });

  it("answers every code of the contract with its status, VERSIONS_UNAVAILABLE included (built code, not the source)", () => {
    // Act
    const probe = plainNode(["-e", "import('skills-service/client').then((m) => console.log(JSON.stringify(m.API_ERROR_STATUS)))"]);

    // Assess
    expect(probe.status, probe.stderr).toBe(0);
    expect(JSON.parse(probe.stdout)).toMatchObject({ VERSIONS_UNAVAILABLE: 501, NOT_FOUND: 404, INTERNAL: 500 });
  });

  it("ships .d.ts beside the JavaScript, where package.json's `types` condition points", () => {
    // Prepare
    const exported = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, Record<string, string>> })
      .exports["./client"];

    // Assess
    expect(exported).toMatchObject({ types: "./dist/client/client/index.d.ts", import: "./dist/client/client/index.js" });
    expect(existsSync(join(ROOT, exported?.types ?? "missing"))).toBe(true);
    expect(relative(ROOT, ENTRY)).toBe(exported?.import?.replace("./", ""));
  });

  it("needs at run time no package but the ones package.json declares as dependencies", () => {
    // Prepare
    const declared = Object.keys(
      (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies,
    );
    const builtins = new Set(["node"]);

    // Act
    const packages = [...runtimePackages(ENTRY)].filter((name) => !builtins.has(name) && !name.startsWith("node:"));

    // Assess
    expect(packages.filter((name) => !declared.includes(name))).toEqual([]);
  });
});
