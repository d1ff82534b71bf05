/**
 * Typed domain errors. Each carries the context a caller needs; the HTTP surface maps
 * `code` to a status in one table (see API.md), so nothing else switches on class names.
 */
import type { ErrorCode } from "../contract/error-codes.js";

/** API.md "Errors": the codes are the contract's (contract/error-codes.ts), with their statuses. */
export type { ErrorCode };

export abstract class SkillsError extends Error {
  abstract readonly code: ErrorCode;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class SkillNotFound extends SkillsError {
  readonly code = "SKILL_NOT_FOUND";
  /** `skipped`: why a document of that name exists but was not usable (a problem of the cascade). */
  constructor(
    readonly skillName: string,
    skipped?: { path: string; source: string; message: string },
  ) {
    super(
      skipped === undefined
        ? `Skill '${skillName}' not found`
        : `Skill '${skillName}' not found: its document ${skipped.path} (${skipped.source}) was skipped: ${skipped.message}. GET …/skills/problems lists every skipped document`,
    );
  }
}

export class SkillNotAllowedByRecipe extends SkillsError {
  readonly code = "SKILL_NOT_ALLOWED";
  constructor(
    readonly skillName: string,
    readonly recipe: string,
  ) {
    super(`Skill '${skillName}' is not allowed by recipe '${recipe}'`);
  }
}

export class SkillArgumentMissing extends SkillsError {
  readonly code = "SKILL_ARGUMENT_MISSING";
  constructor(
    readonly skillName: string,
    readonly argumentName: string,
  ) {
    super(`Skill '${skillName}' requires argument '${argumentName}'`);
  }
}

export class SkillLocked extends SkillsError {
  readonly code = "SKILL_LOCKED";
  constructor(
    readonly skillName: string,
    readonly recipe: string,
  ) {
    super(`Skill '${skillName}' comes from locked recipe '${recipe}' and cannot be cleared`);
  }
}

/**
 * One finding about a document: an error makes it unusable, a warning does not but changes how it
 * behaves (or is likely a mistake), an info changes nothing (a missing `title:` of an Agent Skills
 * document): the author need not act on it (docs/decisions.md, issue 30).
 */
export interface DocumentProblem {
  path: string;
  line?: number;
  message: string;
  severity: "error" | "warning" | "info";
}

export class InvalidDocument extends SkillsError {
  readonly code = "INVALID_DOCUMENT";
  constructor(
    readonly path: string,
    readonly problems: DocumentProblem[],
  ) {
    super(
      `${path}: ${
        problems
          .filter((p) => p.severity === "error")
          .map((p) => p.message)
          .join("; ") || "invalid document"
      }`,
    );
  }
}

export class InvalidRequest extends SkillsError {
  readonly code = "INVALID_REQUEST";
}

export class RecipeNotFound extends SkillsError {
  readonly code = "RECIPE_NOT_FOUND";
  constructor(readonly recipeName: string) {
    super(`Recipe '${recipeName.slice(0, 80)}' not found`);
  }
}

/** An `activate:`/`deactivate:` entry (spec §2a) names a verb no handler is registered for. */
export class UnknownEngineCommand extends InvalidRequest {
  constructor(
    readonly verb: string,
    readonly skillName: string | undefined,
    readonly command: string,
  ) {
    super(`Unknown engine command '${verb}'${skillName !== undefined ? ` in skill '${skillName}'` : ""}`);
  }
}

/** A known engine command verb with arguments it cannot accept. */
export class InvalidEngineCommand extends InvalidRequest {
  constructor(
    readonly verb: string,
    readonly skillName: string | undefined,
    readonly command: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Engine command '${verb}'${skillName !== undefined ? ` in skill '${skillName}'` : ""}: ${reason}`, options);
  }
}

/** GET/DELETE of a document that does not exist (API.md DOCUMENT_NOT_FOUND). */
export class DocumentNotFound extends SkillsError {
  readonly code = "DOCUMENT_NOT_FOUND";
  constructor(readonly path: string) {
    super(`Document '${path.slice(0, 200)}' not found`);
  }
}

/** A tool the process does not have now, or one the Skills service does not serve (API.md TOOL_NOT_FOUND). */
export class ToolNotFound extends SkillsError {
  readonly code = "TOOL_NOT_FOUND";
  constructor(
    readonly toolName: string,
    reason?: string,
  ) {
    super(`Tool '${toolName.slice(0, 128)}' not found${reason ? `: ${reason}` : ""}`);
  }
}

/**
 * A per-identity or per-tenant limit (API.md 429 TOO_MANY_REQUESTS): the caller may retry after
 * `retryAfterSeconds`, which the HTTP answer carries as `Retry-After`.
 */
export class TooManyRequests extends SkillsError {
  readonly code = "TOO_MANY_REQUESTS";
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A body or value past a size cap the caller can see (API.md 413 PAYLOAD_TOO_LARGE). */
export class PayloadTooLarge extends SkillsError {
  readonly code = "PAYLOAD_TOO_LARGE";
  constructor(
    message: string,
    readonly limitBytes: number,
  ) {
    super(message);
  }
}

/**
 * Version history needs a versioned bucket or a history bucket (SKILLS_HISTORY_BUCKET_NAME, which
 * the local stack sets); a store with neither keeps none (decisions.md, issue 17).
 */
export class VersionsUnavailable extends SkillsError {
  readonly code = "VERSIONS_UNAVAILABLE";
  constructor() {
    super(
      "This deployment keeps no document versions (a versioned S3 bucket, or SKILLS_HISTORY_BUCKET_NAME for one without versioning, is needed)",
    );
  }
}
