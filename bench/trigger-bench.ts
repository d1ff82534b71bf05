import { monitorEventLoopDelay } from "node:perf_hooks";
import { startLocalStack } from "../infra/local/local-stack.js";
import type { LocalStackLogger } from "../infra/local/local-logger.js";
import { hostileMessage, hostilePattern } from "./trigger-attack-workload.js";
import { percentile } from "./bench-table.js";
import type { BenchRow } from "./bench-table.js";

/**
 * The trigger attack of issue 11 on the local stack (every function in this one process, as one
 * warm Lambda instance would hold them): a member of tenant A fills their `_user_` level up to the
 * trigger caps with DFA-hostile PATTERN triggers (20 skills × 10) and composes turns with 32 KB
 * messages, one after another; meanwhile a member of tenant B lists skills in a loop. Measured:
 * B's GET latency while the attack runs (beside B alone, the baseline), the attack's compose
 * latency, and the instance's heap after it.
 */

const ATTACKER = { tenant: "bench-a", login: "mallory", projects: ["demo"] };
const VICTIM = { tenant: "bench-b", login: "victor", projects: ["demo"] };
const SKILLS = 20;
const PATTERNS_PER_SKILL = 10;
const ATTACK_TURNS = 8;
const IDLE_SAMPLES = 100;

const quiet: LocalStackLogger = { info: () => undefined, warn: () => undefined, error: (message, detail) => console.error(`[local stack] ${message}`, detail ?? "") };

class BenchFailure extends Error {}

async function call(url: string, token: string, method: string, body?: string, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(url, { method, headers: { authorization: `Bearer ${token}`, ...headers }, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  if (response.status !== 200 && response.status !== 201) throw new BenchFailure(`${method} ${url} answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as unknown;
}

function hostileSkill(s: number): string {
  const triggers = Array.from({ length: PATTERNS_PER_SKILL }, (_, t) => `  - type: PATTERN\n    pattern: ${JSON.stringify(hostilePattern(s * PATTERNS_PER_SKILL + t))}`);
  return `---\ntitle: Bomb ${s}\ndescription: Many patterns\nversion: 1.0.0\ntriggers:\n${triggers.join("\n")}\n---\nBody.\n`;
}

const mib = (bytes: number): number => bytes / 2 ** 20;

export async function benchTriggers(): Promise<BenchRow[]> {
  process.env.POWERTOOLS_LOG_LEVEL ??= "ERROR";
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const stack = await startLocalStack({ port: 0, logger: quiet });
  try {
    const base = stack.httpUrl;
    const attacker = await stack.token(ATTACKER);
    const victim = await stack.token(VICTIM);
    for (let s = 0; s < SKILLS; s++) {
      await call(`${base}/brain/${ATTACKER.tenant}/projects/_user_${ATTACKER.login}/documents/_vance/skills/bomb-${s}/SKILL.md`, attacker, "PUT", hostileSkill(s), { "content-type": "text/markdown" });
    }
    const spawned = (await call(`${base}/brain/${ATTACKER.tenant}/sessions/bench/processes`, attacker, "POST", JSON.stringify({ recipe: "default", projectId: "demo" }), {
      "content-type": "application/json",
    })) as { processId: string };
    const message = hostileMessage(32 * 1024 - 64);
    const compose = async (): Promise<{ ms: number; warnings: string[] }> => {
      const started = performance.now();
      const answer = (await call(`${base}/brain/${ATTACKER.tenant}/processes/${spawned.processId}/turns`, attacker, "POST", JSON.stringify({ message }), {
        "content-type": "application/json",
        prefer: "wait=20",
      })) as { result?: { warnings?: string[] }; warnings?: string[] };
      return { ms: performance.now() - started, warnings: answer.result?.warnings ?? answer.warnings ?? [] };
    };
    const list = async (): Promise<number> => {
      const started = performance.now();
      await call(`${base}/brain/${VICTIM.tenant}/skills/effective?projectId=demo`, victim, "GET");
      return performance.now() - started;
    };

    // Warm both paths (module load, catalogue, compiled patterns), then B alone.
    for (let i = 0; i < 5; i++) await list();
    await compose();
    const idle: number[] = [];
    for (let i = 0; i < IDLE_SAMPLES; i++) idle.push(await list());

    const heapBefore = process.memoryUsage().heapUsed;
    // The attack: A's turns back to back; B's GETs in a loop until they are done.
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    loopDelay.enable();
    let attacking = true;
    const during: number[] = [];
    const victimLoop = (async () => {
      while (attacking) during.push(await list());
    })();
    const composeSamples: number[] = [];
    let skippedTurns = 0;
    for (let i = 0; i < ATTACK_TURNS; i++) {
      const turn = await compose();
      composeSamples.push(turn.ms);
      if (turn.warnings.some((w) => w.includes("were not checked"))) skippedTurns += 1;
    }
    attacking = false;
    await victimLoop;
    loopDelay.disable();
    const heap = process.memoryUsage();

    const note = `${SKILLS} _user_ skills × ${PATTERNS_PER_SKILL} DFA-hostile PATTERN triggers, 32 KB messages, ${ATTACK_TURNS} turns`;
    return [
      { metric: "trigger_attack_other_tenant_get_p99_ms", ours: percentile(during, 99), baseline: percentile(idle, 99), unit: "ms", note: `tenant B GET skills/effective during the attack (${during.length} calls); baseline: B alone` },
      { metric: "trigger_attack_other_tenant_get_p50_ms", ours: percentile(during, 50), baseline: percentile(idle, 50), unit: "ms", note: "as above, median" },
      { metric: "trigger_attack_compose_p50_ms", ours: percentile(composeSamples, 50), baseline: null, unit: "ms", note: `${note}; ${skippedTurns} of ${ATTACK_TURNS} turns warned of skipped skills` },
      { metric: "trigger_attack_event_loop_delay_max_ms", ours: loopDelay.max / 1e6, baseline: null, unit: "ms", note: "longest the instance's event loop was held during the attack (monitorEventLoopDelay)" },
      { metric: "trigger_attack_heap_used_after_mib", ours: mib(heap.heapUsed), baseline: mib(heapBefore), unit: "MiB", note: "instance heap (all functions of the local stack) right after the attack; baseline: before it, warm" },
    ];
  } finally {
    await stack.close();
  }
}
