import { afterAll, describe, expect, it } from "vitest";
import { resolvedSkill } from "../../bench/compose-bench-helpers.js";
import { FairQueue } from "../../shared/sandbox/fair-queue.js";
import type { FairJob } from "../../shared/sandbox/fair-queue.js";
import { SandboxUnavailable } from "../../shared/sandbox/sandbox-errors.js";
import { SandboxPool } from "../../shared/sandbox/sandbox-pool.js";
import type { ResolvedSkill } from "../../shared/skills/resolved-skill.js";
import { composeSection } from "../../shared/skills/skill-prompt-composer.js";
import { createTemplateRenderer } from "../../shared/templates/sandboxed-template-renderer.js";
import { TemplateLimitExceeded, TemplateRenderError } from "../../shared/templates/template-errors.js";
import type { RenderContext, TemplateRenderer } from "../../shared/templates/template-renderer.js";

const pool = new SandboxPool({ size: 1 });
afterAll(() => pool.close());

interface TestJob extends FairJob {
  name: string;
}
const job = (name: string, fairnessKey?: string, depth = 0): TestJob => ({
  name,
  depth,
  ...(fairnessKey === undefined ? {} : { fairnessKey }),
});

const drainNames = (queue: FairQueue<TestJob>): string[] => {
  const names: string[] = [];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) names.push(next.name);
  return names;
};

describe("sandbox scheduler fairness (FairQueue)", () => {
  it("serves another tenant's single job second, not after the first tenant's 40", () => {
    // Prepare
    const queue = new FairQueue<TestJob>();
    for (let i = 0; i < 40; i++) queue.push(job(`a${i}`, "tenant-a"));
    queue.push(job("b-preview", "tenant-b"));

    // Act
    const order = drainNames(queue);

    // Assess
    expect(order.slice(0, 3)).toEqual(["a0", "b-preview", "a1"]);
    expect(order).toHaveLength(41);
  });

  it("rotates between three tenants, keeping each tenant's jobs in FIFO order", () => {
    // Prepare
    const queue = new FairQueue<TestJob>();
    for (const name of ["a1", "a2", "a3"]) queue.push(job(name, "a"));
    for (const name of ["b1", "b2"]) queue.push(job(name, "b"));
    queue.push(job("c1", "c"));

    // Act
    const order = drainNames(queue);

    // Assess
    expect(order).toEqual(["a1", "b1", "c1", "a2", "b2", "a3"]);
  });

  it("serves nested (deeper) work first whoever it is for: its caller holds a worker", () => {
    // Prepare
    const queue = new FairQueue<TestJob>();
    queue.push(job("a-top", "a"));
    queue.push(job("b-top", "b"));
    queue.push(job("a-nested", "a", 1));

    // Act
    const order = drainNames(queue);

    // Assess
    expect(order[0]).toBe("a-nested");
  });

  it("gives a tenant that arrives while another's backlog drains the very next turn", () => {
    // Prepare
    const queue = new FairQueue<TestJob>();
    for (let i = 0; i < 5; i++) queue.push(job(`a${i}`, "a"));
    const first = queue.shift();

    // Act
    queue.push(job("b1", "b"));
    const order = drainNames(queue);

    // Assess
    expect(first?.name).toBe("a0");
    expect(order.slice(0, 2)).toEqual(["a1", "b1"]);
  });

  it("treats work without a tenant as one more queue, and forgets aborted jobs", () => {
    // Prepare
    const queue = new FairQueue<TestJob>();
    const aborted = job("a2", "a");
    queue.push(job("a1", "a"));
    queue.push(aborted);
    queue.push(job("x1"));
    queue.push(job("a3", "a"));

    // Act
    const removed = queue.remove(aborted);
    const order = drainNames(queue);

    // Assess
    expect(removed).toBe(true);
    expect(order).toEqual(["a1", "x1", "a3"]);
    expect(queue.length).toBe(0);
  });

  it("orders a real pool's work: tenant B's evaluation finishes before most of tenant A's backlog", async () => {
    // Prepare
    const finished: string[] = [];
    const busy = "let n = 0; for (let i = 0; i < 200000; i++) n += i; n";
    await pool.warmUp();

    // Act
    const runs = [
      ...Array.from({ length: 6 }, (_, i) => pool.evaluate({ code: busy, fairnessKey: "tenant-a" }).then(() => finished.push(`a${i}`))),
      pool.evaluate({ code: "1", fairnessKey: "tenant-b" }).then(() => finished.push("b")),
    ];
    await Promise.all(runs);

    // Assess: one worker, so at most one of A's jobs (the running one) and A's next may precede B.
    expect(finished.indexOf("b")).toBeLessThanOrEqual(2);
  });
});

const skill = (name: string, body: string): ResolvedSkill => resolvedSkill({ name, description: `${name} description`, body });

/** Each render "takes" 500 ms of a fake clock: the budget is about work spent, not wall time here. */
class SlowFakeRenderer implements TemplateRenderer {
  now = 0;
  readonly rendered: string[] = [];
  constructor(private readonly cachedBodies: Record<string, string> = {}) {}
  cached(template: string): string | undefined {
    return this.cachedBodies[template];
  }
  async render(template: string): Promise<string> {
    this.rendered.push(template);
    await Promise.resolve();
    this.now += 500;
    return `rendered ${template}`;
  }
}

describe("render budget per turn", () => {
  it("skips the skills whose render would start past the budget, each with a warning", async () => {
    // Prepare
    const renderer = new SlowFakeRenderer();
    const entries = Array.from({ length: 5 }, (_, i) => ({ skill: skill(`s${i}`, `{{ tier }} ${i}`) }));

    // Act
    const result = await composeSection(entries, { tier: "t" }, renderer, { maxMs: 1_000, concurrency: 1, now: () => renderer.now });

    // Assess
    expect(result.included).toEqual(["s0", "s1"]);
    expect(result.warnings).toEqual(
      ["s2", "s3", "s4"].map((name) => ({ skill: name, message: expect.stringContaining("render budget of 1000 ms") })),
    );
    expect(renderer.rendered).toHaveLength(2);
  });

  it("never skips plain or cached bodies, however much the renders cost", async () => {
    // Prepare
    const renderer = new SlowFakeRenderer({ "{{ cached }}": "from cache" });
    const entries = [
      { skill: skill("slow1", "{{ a }}") },
      { skill: skill("slow2", "{{ b }}") },
      { skill: skill("plain", "Just text.") },
      { skill: skill("warm", "{{ cached }}") },
      { skill: skill("slow3", "{{ c }}") },
    ];

    // Act
    const result = await composeSection(entries, {}, renderer, { maxMs: 500, concurrency: 1, now: () => renderer.now });

    // Assess
    expect(result.included).toEqual(["slow1", "plain", "warm"]);
    expect(result.warnings.map((w) => w.skill)).toEqual(["slow2", "slow3"]);
  });

  it("keeps a turn's renders to `concurrency` at a time", async () => {
    // Prepare
    let inFlight = 0;
    let maxInFlight = 0;
    const renderer: TemplateRenderer = {
      render: async (template: string) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 1));
        inFlight--;
        return template;
      },
    };
    const entries = Array.from({ length: 8 }, (_, i) => ({ skill: skill(`s${i}`, `{{ x }}${i}`) }));

    // Act
    const result = await composeSection(entries, {}, renderer, { maxMs: 60_000, concurrency: 2 });

    // Assess
    expect(result.included).toHaveLength(8);
    expect(maxInFlight).toBe(2);
  });
});

describe("failed renders are cached like successful ones", () => {
  const counting = () => {
    let evaluations = 0;
    const countingPool = new Proxy(pool, {
      get(target, property, receiver) {
        if (property === "evaluate") {
          return (request: Parameters<SandboxPool["evaluate"]>[0]) => {
            evaluations++;
            return target.evaluate(request);
          };
        }
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    return { countingPool, evaluations: () => evaluations };
  };

  it("a body that runs to its deadline fails from the cache the second time (same template and context)", async () => {
    // Prepare
    const { countingPool, evaluations } = counting();
    const renderer = createTemplateRenderer({ pool: countingPool, timeoutMs: 150 });
    const spin = "{% for i in range(0, 100000000) %}{{ i }}{% endfor %}";
    const context: RenderContext = { tier: "t" };

    // Act
    const first = await renderer.render(spin, context).catch((e: unknown) => e);
    const second = await renderer.render(spin, context).catch((e: unknown) => e);

    // Assess
    expect(first).toBeInstanceOf(TemplateLimitExceeded);
    expect(second).toBe(first);
    expect(evaluations()).toBe(1);
  });

  it("caches a runtime error per context: another context renders again", async () => {
    // Prepare
    const { countingPool, evaluations } = counting();
    const renderer = createTemplateRenderer({ pool: countingPool, timeoutMs: 5_000 });
    const failing = "{{ params.x.y.z() }}";

    // Act
    const a1 = await renderer.render(failing, { params: { x: 1 } }).catch((e: unknown) => e);
    const a2 = await renderer.render(failing, { params: { x: 1 } }).catch((e: unknown) => e);
    const b = await renderer.render(failing, { params: { x: 2 } }).catch((e: unknown) => e);

    // Assess
    expect(a1).toBeInstanceOf(TemplateRenderError);
    expect(a2).toBe(a1);
    expect(b).toBeInstanceOf(TemplateRenderError);
    expect(evaluations()).toBe(2);
  });

  it("does not cache an infrastructure failure: the next render tries again", async () => {
    // Prepare
    let calls = 0;
    const flaky = new Proxy(pool, {
      get(target, property, receiver) {
        if (property === "evaluate") {
          return async () => {
            calls++;
            if (calls === 1) throw new SandboxUnavailable("worker could not start");
            return "ok";
          };
        }
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const renderer = createTemplateRenderer({ pool: flaky });

    // Act
    const first = await renderer.render("{{ tier }}", { tier: "t" }).catch((e: unknown) => e);
    const second = await renderer.render("{{ tier }}", { tier: "t" });

    // Assess
    expect(first).toBeInstanceOf(SandboxUnavailable);
    expect(second).toBe("ok");
  });
});
