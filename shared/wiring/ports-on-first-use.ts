import type { ConnectionPush, PushOutcome, PushTarget } from "../connections/connection-push.js";
import type { ServerFrame } from "../connections/server-frames.js";
import type { Lane } from "../lanes/lane.js";
import type { LaneMessage } from "../lanes/lane-message.js";
import { loadOnce } from "../lazy/load-once.js";
import { hasTemplateSyntax } from "../templates/template-renderer.js";
import type { TemplateRenderer } from "../templates/template-renderer.js";
import type { GuardEvaluation, GuardRunner, GuardVerdict } from "../turns/guard-runner.js";

/*
 * Ports whose adapter is built on their first call, from a module imported then (`import()`: a
 * chunk of its own in a Lambda bundle, lane-worker-adapters.ts), not at init. The lane worker's: a composed turn enqueues nothing,
 * pushes only to subscribers, renders only bodies with template syntax and runs no guard, so its
 * cold start need not load SQS, the WebSocket management API, the sandbox or the guard runner
 * (infra/lambda-bundle.ts, LAZY_IN_FUNCTION). Each forwards every call unchanged once loaded; a
 * failed load rejects that call and is tried again by the next one (shared/lazy/load-once.ts).
 */

export class LaneOnFirstUse implements Lane {
  private readonly lane: () => Promise<Lane>;

  constructor(load: () => Promise<Lane>) {
    this.lane = loadOnce(load);
  }

  async enqueue(message: LaneMessage): Promise<void> {
    return (await this.lane()).enqueue(message);
  }
}

export class ConnectionPushOnFirstUse implements ConnectionPush {
  private readonly push: () => Promise<ConnectionPush>;

  constructor(load: () => Promise<ConnectionPush>) {
    this.push = loadOnce(load);
  }

  async send(target: PushTarget, frame: ServerFrame): Promise<PushOutcome> {
    return (await this.push()).send(target, frame);
  }

  async disconnect(target: PushTarget): Promise<void> {
    await (await this.push()).disconnect?.(target);
  }
}

/**
 * Plain text is answered without loading, as the sandboxed renderer answers it: a body without
 * template syntax is its own output. Before the first load nothing is cached, so `cached` answers
 * what a fresh renderer would.
 */
export class TemplateRendererOnFirstUse implements TemplateRenderer {
  private readonly load: () => Promise<TemplateRenderer>;
  private loaded: TemplateRenderer | undefined;

  constructor(load: () => Promise<TemplateRenderer>) {
    this.load = loadOnce(load);
  }

  cached(...args: Parameters<NonNullable<TemplateRenderer["cached"]>>): string | undefined {
    if (this.loaded) return this.loaded.cached?.(...args);
    const [template] = args;
    return hasTemplateSyntax(template) ? undefined : template;
  }

  async render(...args: Parameters<TemplateRenderer["render"]>): Promise<string> {
    const [template] = args;
    if (this.loaded === undefined && !hasTemplateSyntax(template)) return template;
    this.loaded ??= await this.load();
    return this.loaded.render(...args);
  }
}

/** Loaded by the first guard to evaluate; a load that fails fails that completion (retried by the lane), not open like a guard. */
export class GuardRunnerOnFirstUse implements GuardRunner {
  private readonly runner: () => Promise<GuardRunner>;

  constructor(load: () => Promise<GuardRunner>) {
    this.runner = loadOnce(load);
  }

  async evaluate(evaluation: GuardEvaluation): Promise<GuardVerdict> {
    return (await this.runner()).evaluate(evaluation);
  }
}
