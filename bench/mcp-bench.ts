import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startLocalStack } from "../infra/local/local-stack.js";
import { quiet } from "./quiet-stack-logger.js";
import { percentile, repeated, timeMany } from "./bench-table.js";
import { REPETITIONS } from "./bench-mode.js";
import type { BenchRow } from "./bench-table.js";

/**
 * MCP over HTTP on the local stack (issue 14): `prompts/list` of a project with 1 000 skills (every
 * page, 100 prompts each) and `prompts/get` of one, through the SDK's own client. The catalogue is
 * warm after the warm-up, so a steady call reads version items only, no S3 object.
 */

const TENANT = "bench";
const PROJECT = "mcp";
const SKILLS = 1000;
const WARMUP = 3;
const SAMPLES = 50;

const skillMd = (i: number): string =>
  `---\nname: s${String(i).padStart(4, "0")}\ndescription: Bench skill ${i}.\narguments:\n  - name: lang\n    enum: [ts, py]\n---\nDo task ${i} carefully.\n`;

export async function benchMcp(): Promise<BenchRow[]> {
  process.env.POWERTOOLS_LOG_LEVEL ??= "ERROR";
  const stack = await startLocalStack({ port: 0, logger: quiet });
  try {
    const token = await stack.token({ tenant: TENANT, login: "bench", projects: [PROJECT], roles: [`project-admin:${PROJECT}`] });
    const headers = { authorization: `Bearer ${token}` };
    for (let i = 0; i < SKILLS; i++) {
      const path = `${stack.httpUrl}/brain/${TENANT}/projects/${PROJECT}/documents/_vance/skills/s${String(i).padStart(4, "0")}/SKILL.md`;
      const response = await fetch(path, { method: "PUT", headers: { ...headers, "content-type": "text/markdown" }, body: skillMd(i) });
      if (response.status !== 200) throw new Error(`seeding answered ${response.status}: ${await response.text()}`);
    }
    const client = new Client({ name: "skills-bench", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.httpUrl}/brain/${TENANT}/mcp?projectId=${PROJECT}`), { requestInit: { headers } }),
    );
    const listAll = async (): Promise<void> => {
      let cursor: string | undefined;
      let count = 0;
      do {
        const result = await client.listPrompts(cursor === undefined ? {} : { cursor });
        count += result.prompts.length;
        cursor = result.nextCursor;
      } while (cursor !== undefined);
      if (count < SKILLS) throw new Error(`prompts/list saw ${count} prompts, expected at least ${SKILLS}`);
    };
    const firstPage = () => client.listPrompts();
    const get = () => client.getPrompt({ name: "s0500", arguments: { lang: "ts" } });
    for (let i = 0; i < WARMUP; i++) {
      await listAll();
      await get();
    }
    // Each repetition times SAMPLES calls; a row is the median of the repetitions' percentiles, with their spread.
    const runs: { page: number[]; all: number[]; get: number[] }[] = [];
    for (let r = 0; r < REPETITIONS; r++) {
      runs.push({ page: await timeMany(SAMPLES, firstPage), all: await timeMany(SAMPLES, listAll), get: await timeMany(SAMPLES, get) });
    }
    await client.close();
    const row = (pick: (run: (typeof runs)[number]) => number[], p: number) => repeated(runs.map((run) => percentile(pick(run), p)));
    const note = `${SKILLS} project skills, SDK client over HTTP, warm catalogue, ${SAMPLES} calls per repetition`;
    return [
      {
        metric: "mcp_prompts_list_page_p50_ms",
        ...row((r) => r.page, 50),
        baseline: null,
        unit: "ms",
        note: `prompts/list first page (100), ${note}`,
      },
      {
        metric: "mcp_prompts_list_page_p99_ms",
        ...row((r) => r.page, 99),
        baseline: null,
        unit: "ms",
        note: `prompts/list first page (100), ${note}`,
      },
      {
        metric: "mcp_prompts_list_all_p50_ms",
        ...row((r) => r.all, 50),
        baseline: null,
        unit: "ms",
        note: `prompts/list every page (${SKILLS / 100} calls), ${note}`,
      },
      {
        metric: "mcp_prompts_list_all_p99_ms",
        ...row((r) => r.all, 99),
        baseline: null,
        unit: "ms",
        note: `prompts/list every page (${SKILLS / 100} calls), ${note}`,
      },
      {
        metric: "mcp_prompts_get_p50_ms",
        ...row((r) => r.get, 50),
        baseline: null,
        unit: "ms",
        note: `prompts/get with one argument, ${note}`,
      },
    ];
  } finally {
    await stack.close();
  }
}
