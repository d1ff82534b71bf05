/**
 * The render context of spec §5a/§9 (recipes §5): what a skill body or `action:` template sees.
 * Everything here is data (JSON); nothing in it is ever treated as template source.
 */
export interface RenderContext {
  tier?: string | undefined;
  model?: string | undefined;
  provider?: string | undefined;
  mode?: string | undefined;
  profile?: string | undefined;
  recipe?: string | undefined;
  engine?: string | undefined;
  lang?: string | undefined;
  params?: Record<string, unknown> | undefined;
  /** Bound skill arguments (skill-argument-binder.ts): `text`, `words`, and declared names. */
  args?: Record<string, unknown> | undefined;
}

/** How to render, apart from what the template sees. */
export interface RenderOptions {
  /** Whom the render is for: the sandbox serves tenants in turn. Without one it queues anonymously. */
  tenant?: string | undefined;
}

/**
 * Renders untrusted nunjucks templates. Implementations must be safe for hostile authors
 * (see ../shared/SECURITY.md): bounded time and output, no host access, no state shared
 * between renders. Failures reject with a TemplateError subclass (template-errors.ts).
 */
export interface TemplateRenderer {
  render(template: string, context: RenderContext, options?: RenderOptions): Promise<string>;
  /**
   * What `render` would resolve to when that output is cached, else undefined; never renders and
   * never throws. Lets a warm turn compose without a promise per skill. Optional: without it,
   * callers render.
   */
  cached?(template: string, context: RenderContext): string | undefined;
}

/** Cheap check used to skip the sandbox entirely for plain Markdown bodies. */
export const hasTemplateSyntax = (text: string): boolean => /\{[{%#]/.test(text);
