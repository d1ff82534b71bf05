import { SkillsError } from "../errors.js";

/** Base of every failure to render an author's template; composition skips that skill with a warning. */
export class TemplateError extends SkillsError {
  readonly code = "INVALID_DOCUMENT";
}

/** The template does not parse (nunjucks syntax error), with the line where known. */
export class TemplateSyntaxError extends TemplateError {
  constructor(
    message: string,
    readonly line?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The template parsed but failed while rendering (undefined call, denied member, include, …), with the line where known. */
export class TemplateRenderError extends TemplateError {
  constructor(
    message: string,
    readonly line?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Rendering hit its deadline, memory limit or output cap, or the template itself is too
 * large or too complex to compile ("size").
 */
export class TemplateLimitExceeded extends TemplateError {
  constructor(
    message: string,
    readonly limit: "time" | "memory" | "output" | "size",
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
