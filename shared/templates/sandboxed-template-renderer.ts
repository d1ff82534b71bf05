import { hash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { SandboxError, SandboxMemoryExceeded, SandboxOutputTooLarge, SandboxTimeout } from "../sandbox/sandbox-errors.js";
import { getDefaultSandboxPool, type SandboxPool } from "../sandbox/sandbox-pool.js";
import { TemplateError, TemplateLimitExceeded, TemplateRenderError } from "./template-errors.js";
import { precompileTemplate, type TemplatePrecompileOptions } from "./template-precompiler.js";
import { hasTemplateSyntax, type RenderContext, type RenderOptions, type TemplateRenderer } from "./template-renderer.js";
import { NUNJUCKS_GUEST_RUNTIME } from "./vendor/nunjucks-guest-runtime.js";

export interface SandboxedTemplateRendererOptions extends TemplatePrecompileOptions {
  /** Default: the process-wide pool (getDefaultSandboxPool). */
  pool?: SandboxPool;
  timeoutMs?: number;
  memoryBytes?: number;
  /** Cap on rendered output, in UTF-8 bytes of its JSON form. */
  maxOutputBytes?: number;
  /** Rendered outputs kept, by (template hash, context hash); bounded by count and total characters (positive integers). */
  renderCacheEntries?: number;
  renderCacheChars?: number;
  /** Precompiled templates (and their syntax errors) kept, by template hash; bounded by count and total characters (positive integers). */
  compiledCacheEntries?: number;
  compiledCacheChars?: number;
  /** Failed renders kept, by the same key as outputs (positive integer): a failing body is not re-run every turn. */
  failedCacheEntries?: number;
}

const DEFAULTS = {
  timeoutMs: 500,
  memoryBytes: 16 * 1024 * 1024,
  maxOutputBytes: 256 * 1024,
  renderCacheEntries: 1_000,
  renderCacheChars: 8 * 1024 * 1024,
  compiledCacheEntries: 500,
  compiledCacheChars: 16 * 1024 * 1024,
  failedCacheEntries: 1_000,
};

// One-shot hash: a Hash object per call (createHash) left a native wrapper for the scavenger to
// finalize, and with two hashes per skill per turn that GC work was a fifth of a warm compose.
const sha256 = (text: string): string => hash("sha256", text, "base64url");

/** Versioned by content so two renderer builds never share a prelude id with different code. */
export const NUNJUCKS_PRELUDE_ID = `nunjucks-guest-runtime@${sha256(NUNJUCKS_GUEST_RUNTIME).slice(0, 16)}`;

type Compiled = { code: string } | { error: TemplateError };

// lru-cache accepts positive sizes only: a syntax error or an empty output counts as one character.
const cacheChars = (chars: number): number => Math.max(1, chars);

// Key order matters (a for-loop over params iterates in it), so hash the exact JSON.
const renderKey = (templateHash: string, contextJson: string): string => `${templateHash}:${sha256(contextJson)}`;

const toTemplateError = (error: unknown): unknown => {
  if (error instanceof SandboxTimeout)
    return new TemplateLimitExceeded(`template rendering exceeded ${error.timeoutMs} ms`, "time", { cause: error });
  if (error instanceof SandboxMemoryExceeded)
    return new TemplateLimitExceeded("template rendering exceeded its memory limit", "memory", { cause: error });
  if (error instanceof SandboxOutputTooLarge)
    return new TemplateLimitExceeded(`rendered template exceeds ${error.maxOutputBytes} bytes`, "output", { cause: error });
  if (error instanceof SandboxError && error.guestErrorName === "InternalError" && /stack overflow/i.test(error.message)) {
    // Unbounded macro recursion: a resource limit like the others, not an authoring mistake nunjucks could name.
    return new TemplateLimitExceeded("template recursion exceeded the sandbox stack", "memory", { cause: error });
  }
  if (error instanceof SandboxError) {
    // Only the guest runtime's own failures carry a template line; other lines point into generated code.
    const line = error.guestErrorName === "TemplateRenderError" ? error.line : undefined;
    return new TemplateRenderError(error.message, line, { cause: error });
  }
  // SandboxUnavailable and anything else is an infrastructure failure, not the author's: pass it on.
  return error;
};

/**
 * Renders untrusted nunjucks templates inside the QuickJS sandbox (see SECURITY.md):
 * the template is precompiled on the host (parsing only), then executed with a hardened
 * nunjucks runtime in a fresh QuickJS context per render, bounded in time, memory and
 * output. Arguments and context travel as JSON data, never as template source, and output is
 * never rendered again. Autoescape is off (prompt text, not HTML); undefined variables render
 * empty; include/import/extends fail with TemplateRenderError.
 *
 * Caches are per instance and content-addressed. Create one renderer per tenant when cache
 * hits must not be observable across tenants; they can share one SandboxPool.
 */
export class SandboxedTemplateRenderer implements TemplateRenderer {
  private readonly pool: SandboxPool;
  private readonly limits: { timeoutMs: number; memoryBytes: number; maxOutputBytes: number };
  private readonly precompileOptions: TemplatePrecompileOptions;
  private readonly compiled: LRUCache<string, Compiled>;
  private readonly rendered: LRUCache<string, string>;
  /**
   * Renders that failed for the author's reasons (TemplateError: syntax, runtime, time, memory,
   * output), by (template hash, context hash): the same body with the same context fails the
   * same way, so a body that runs to its deadline costs 500 ms once, not on every turn.
   * Infrastructure failures (SandboxUnavailable, …) are not cached: they may pass on a retry.
   */
  private readonly failed: LRUCache<string, TemplateError>;
  private readonly inFlight = new Map<string, Promise<string>>();

  constructor(options: SandboxedTemplateRendererOptions = {}) {
    this.pool = options.pool ?? getDefaultSandboxPool();
    this.pool.registerPrelude(NUNJUCKS_PRELUDE_ID, NUNJUCKS_GUEST_RUNTIME);
    this.limits = {
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      memoryBytes: options.memoryBytes ?? DEFAULTS.memoryBytes,
      maxOutputBytes: options.maxOutputBytes ?? DEFAULTS.maxOutputBytes,
    };
    this.precompileOptions = options;
    this.compiled = new LRUCache({
      max: options.compiledCacheEntries ?? DEFAULTS.compiledCacheEntries,
      maxSize: options.compiledCacheChars ?? DEFAULTS.compiledCacheChars,
      sizeCalculation: (entry) => cacheChars("code" in entry ? entry.code.length : 0),
    });
    this.rendered = new LRUCache({
      max: options.renderCacheEntries ?? DEFAULTS.renderCacheEntries,
      maxSize: options.renderCacheChars ?? DEFAULTS.renderCacheChars,
      sizeCalculation: (output) => cacheChars(output.length),
    });
    this.failed = new LRUCache({ max: options.failedCacheEntries ?? DEFAULTS.failedCacheEntries });
  }

  cached(template: string, context: RenderContext): string | undefined {
    if (!hasTemplateSyntax(template)) return template;
    let contextJson: unknown;
    try {
      contextJson = JSON.stringify(context ?? {});
    } catch {
      return undefined; // render reports it
    }
    return typeof contextJson === "string" ? this.rendered.get(renderKey(sha256(template), contextJson)) : undefined;
  }

  /** Concurrent callers of one (template, context) share one render, queued as the first caller's tenant. */
  async render(template: string, context: RenderContext, options?: RenderOptions): Promise<string> {
    if (!hasTemplateSyntax(template)) return template;
    let contextJson: string;
    try {
      contextJson = JSON.stringify(context ?? {});
    } catch (error) {
      throw new TemplateRenderError(
        `render context is not JSON data: ${error instanceof Error ? error.message : String(error)}`,
        undefined,
        { cause: error },
      );
    }
    const templateHash = sha256(template);
    const key = renderKey(templateHash, contextJson);
    const cached = this.rendered.get(key);
    if (cached !== undefined) return cached;
    const failed = this.failed.get(key);
    if (failed !== undefined) throw failed;
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const rendering = this.renderUncached(template, templateHash, contextJson, options?.tenant).then(
      (output) => {
        this.inFlight.delete(key);
        this.rendered.set(key, output);
        return output;
      },
      (error: unknown) => {
        this.inFlight.delete(key);
        if (error instanceof TemplateError) this.failed.set(key, error);
        throw error;
      },
    );
    this.inFlight.set(key, rendering);
    return rendering;
  }

  private async renderUncached(template: string, templateHash: string, contextJson: string, tenant: string | undefined): Promise<string> {
    const compiled = await this.compile(template, templateHash);
    if ("error" in compiled) throw compiled.error;
    let output: unknown;
    try {
      output = await this.pool.evaluate({
        code: `__nunjucksRender(function () {\n${compiled.code}\n}, __renderContext);`,
        globalsJson: `{"__renderContext":${contextJson}}`,
        prelude: NUNJUCKS_PRELUDE_ID,
        ...this.limits,
        fairnessKey: tenant,
      });
    } catch (error) {
      throw toTemplateError(error);
    }
    if (typeof output !== "string") throw new TemplateRenderError("template did not render to text");
    return output;
  }

  private async compile(template: string, templateHash: string): Promise<Compiled> {
    const cached = this.compiled.get(templateHash);
    if (cached) return cached;
    let compiled: Compiled;
    try {
      compiled = { code: await precompileTemplate(template, this.precompileOptions) };
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      compiled = { error };
    }
    this.compiled.set(templateHash, compiled);
    return compiled;
  }
}

export const createTemplateRenderer = (options?: SandboxedTemplateRendererOptions): SandboxedTemplateRenderer =>
  new SandboxedTemplateRenderer(options);
