import * as z from "zod/mini";
import "../../contract/locale.js";

/**
 * The one schema of SKILL.md frontmatter (spec §2, §2a, §2b, §2c, §13.1, §13.7) plus the
 * Agent Skills fields (`name`, `allowed-tools`, `license`, `metadata`). Types and the
 * published JSON Schema are derived from it; cross-field rules live in skill-validator.ts.
 */

export const SKILL_NAME_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/*
 * Control characters (C0, DEL, C1) in frontmatter reach terminals, editors and logs that print
 * skills (issue 28: an ESC in a description set the window title and wrote the clipboard through
 * `skills chat`). A single-line field (names, titles, tool names, paths, hints) refuses every one;
 * a text field (descriptions, action:, commands) keeps tab and line breaks and refuses the rest.
 */
// eslint-disable-next-line no-control-regex
const NO_CONTROL = /^[^\u0000-\u001f\u007f-\u009f]*$/;
// eslint-disable-next-line no-control-regex
const NO_CONTROL_BUT_LINES = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]*$/;
const SINGLE_LINE_MESSAGE = "must not contain control characters (line breaks, tabs, escape sequences)";
const TEXT_MESSAGE = "must not contain control characters other than tab and line breaks (no escape sequences)";
/** One line of text, no control characters at all. */
const line = (max: number) => z.string().check(z.maxLength(max), z.regex(NO_CONTROL, SINGLE_LINE_MESSAGE));
/** Free text: tab and line breaks allowed, no other control character. */
const text = (max: number) => z.string().check(z.maxLength(max), z.regex(NO_CONTROL_BUT_LINES, TEXT_MESSAGE));
const shortText = (max: number) => text(max);
const NOT_BLANK = /\S/;
const requiredText = (max: number) =>
  z.string().check(z.minLength(1), z.maxLength(max), z.regex(NOT_BLANK, "must not be blank"), z.regex(NO_CONTROL_BUT_LINES, TEXT_MESSAGE));
const requiredLine = (max: number) =>
  z.string().check(z.minLength(1), z.maxLength(max), z.regex(NOT_BLANK, "must not be blank"), z.regex(NO_CONTROL, SINGLE_LINE_MESSAGE));

/** A tool name as a skill may list it (`tools`, `allowed-tools` entries): one line, no control characters. */
export const hasControlCharacters = (value: string): boolean => !NO_CONTROL.test(value);

/** Values one argument may declare: MCP's completion answers at most 100 at a time. */
export const MAX_ARGUMENT_ENUM_VALUES = 100;

/** Agent Skills caps a description at 1 024 characters; longer ones load with a warning (skill-validator.ts). */
export const AGENT_SKILLS_DESCRIPTION_CHARS = 1024;
export const MAX_DESCRIPTION_CHARS = 16 * 1024;

// Its return type is inferred on purpose: the exported types are derived from it.
function buildSchemas() {
  const ArgumentType = z.enum(["string", "number", "integer", "boolean", "object", "array"]);

  /** SkillArgument and scripts[].params share this one schema (spec §2b, §13.7). */
  const SkillArgument = z.strictObject({
    name: z
      .string()
      .check(
        z.regex(IDENTIFIER, "must be an identifier (letters, digits, _; not starting with a digit; at most 64)"),
        z.describe("Variable name in the template ({{ args.<name> }}) or the script's args key"),
      ),
    type: z._default(ArgumentType, "string"),
    description: z.optional(shortText(1024)),
    required: z._default(z.boolean(), false).check(z.describe("If the token is missing, activation fails")),
    enum: z
      .optional(z.array(z.union([line(256), z.number(), z.boolean()])).check(z.minLength(1), z.maxLength(MAX_ARGUMENT_ENUM_VALUES)))
      .check(z.describe("The values the argument (or script param) may take: offered by MCP completion, checked for script params")),
  });

  const SkillTrigger = z.discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("PATTERN"),
      pattern: line(1000).check(z.minLength(1), z.describe("Java-style regex, matched case-insensitively with RE2 semantics")),
    }),
    z.strictObject({
      type: z.literal("KEYWORDS"),
      keywords: z.array(line(200).check(z.minLength(1))).check(z.minLength(1), z.maxLength(100)),
    }),
  ]);

  const SkillReferenceDoc = z.strictObject({
    title: requiredLine(200),
    file: line(512).check(z.minLength(1), z.describe("Path relative to the skill directory, e.g. references/checklist.md")),
    summary: z.optional(shortText(500)),
    loadMode: z._default(z.enum(["INLINE", "ON_DEMAND"]), "INLINE"),
  });

  const SkillRun = z.strictObject({
    target: z._default(z.enum(["inline", "spawn"]), "inline"),
    recipe: z
      .optional(z.string().check(z.regex(SKILL_NAME_PATTERN, "must be a recipe name (lowercase letters, digits, hyphens)")))
      .check(z.describe("Recipe of the spawned worker; required for target: spawn")),
    inherit: z.optional(line(64)).check(z.describe("Like the recipe param inheritContext; default none for spawn")),
  });

  const SkillScript = z.strictObject({
    name: z.string().check(z.regex(SKILL_NAME_PATTERN, "must be lowercase letters, digits and hyphens")),
    target: z._default(z.enum(["BRAIN", "FOOT"]), "BRAIN"),
    file: line(512).check(z.minLength(1), z.describe("Path relative to the skill directory, e.g. scripts/fetch-diff.js")),
    description: z.optional(shortText(1024)),
    params: z.optional(z.array(SkillArgument).check(z.maxLength(64))),
  });

  const commandList = z.array(text(64 * 1024).check(z.minLength(1))).check(z.maxLength(64));

  const SkillFrontmatter = z.object({
    title: z.optional(requiredLine(200)).check(z.describe("Display name; default: the `name` field, else the directory name")),
    description: requiredText(MAX_DESCRIPTION_CHARS).check(
      z.describe(
        "What the skill does and when to use it (catalog, UI, skill selection); Agent Skills hosts expect at most 1 024 characters. Default: the body's first paragraph",
      ),
    ),
    version: z
      .optional(line(64))
      .check(z.describe("Semantic version such as 1.0.0; absent in Agent Skills documents (then reported as absent)")),
    triggers: z
      .optional(z.array(SkillTrigger).check(z.maxLength(50)))
      .check(z.describe("Auto-activation conditions; empty = explicit activation only")),
    tools: z
      .optional(z.array(line(128).check(z.minLength(1))).check(z.maxLength(200)))
      .check(z.describe("Tool names added to the whitelist while active")),
    manualPaths: z
      .optional(z.array(line(512).check(z.minLength(1))).check(z.maxLength(50)))
      .check(z.describe("Folders (relative to the document root) added to manual_read/manual_list while active")),
    referenceDocs: z.optional(z.array(SkillReferenceDoc).check(z.maxLength(50))),
    tags: z.optional(z.array(line(64).check(z.minLength(1))).check(z.maxLength(50))),
    enabled: z._default(z.boolean(), true),
    lifecycle: z._default(z.enum(["sticky", "shot"]), "sticky"),
    run: z.optional(SkillRun).check(z.describe("Where the activation takes effect: inline (default) or a spawned worker")),
    arguments: z
      .optional(z.union([z.boolean(), z.array(SkillArgument).check(z.maxLength(32))]))
      .check(z.describe("true: consume the rest of the /skill line as args.text; a list: bind named arguments")),
    activate: z.optional(commandList).check(z.describe("Engine commands fired once on activation")),
    deactivate: z.optional(commandList).check(z.describe("Engine commands fired once on clear (never for lifecycle: shot)")),
    action: z.optional(text(64 * 1024)).check(z.describe("Turn prompt fired once on fresh activation")),
    scripts: z.optional(z.array(SkillScript).check(z.maxLength(32))),
    template: z
      .optional(z.boolean())
      .check(
        z.describe(
          "true: the body is a nunjucks template ({{ args.x }}, {% if %}); false: it reaches the model as written ($ARGUMENTS placeholders still apply when the skill asks for arguments). Default: true when title or version is given (this service's own form), or when arguments, lifecycle, activate, deactivate or action is declared and the body has template syntax; false otherwise (Agent Skills documents)",
        ),
      ),
    // Agent Skills (agentskills.io) and Claude Code fields (API.md "Agent Skills documents")
    name: z
      .optional(line(256))
      .check(z.describe("Agent Skills name (or a display name); the skill is always called by its directory name")),
    "allowed-tools": z
      .optional(z.union([text(8192), z.array(line(512).check(z.minLength(1))).check(z.maxLength(200))]))
      .check(
        z.describe(
          "Tools while active: a list, or one string separated by commas and/or spaces; `Bash(git add:*)` permission patterns are kept whole",
        ),
      ),
    license: z.optional(line(1024)),
    compatibility: z.optional(text(1024)).check(z.describe("Agent Skills: environment requirements (informational)")),
    metadata: z.optional(z.record(line(128), text(4096))),
    when_to_use: z
      .optional(text(4096))
      .check(z.describe("Claude Code: when the model should use the skill; appended to the description in the catalog")),
    "argument-hint": z
      .optional(line(256))
      .check(z.describe("Claude Code: the arguments the skill expects, shown in pickers (e.g. [issue-number])")),
    "disable-model-invocation": z
      ._default(z.boolean(), false)
      .check(z.describe("true: never in the model's catalog; explicit activation only")),
    "user-invocable": z
      ._default(z.boolean(), true)
      .check(z.describe("false: hidden from explicit activation and from prompts; the model may still activate it")),
  });

  return { SkillArgument, SkillTrigger, SkillReferenceDoc, SkillRun, SkillScript, SkillFrontmatter };
}

type Schemas = ReturnType<typeof buildSchemas>;
let built: (Schemas & { knownFields: ReadonlySet<string> }) | undefined;

/**
 * The frontmatter schemas, built on first use: a cold instance whose levels come from snapshots
 * parses no SKILL.md, and building these ~40 schemas was ~6–20 ms of every cold start.
 */
export function skillFrontmatterSchemas(): Schemas & {
  /** Field names the schema knows; anything else in a document is a warning, not an error. */
  knownFields: ReadonlySet<string>;
} {
  if (built === undefined) {
    const schemas = buildSchemas();
    built = { ...schemas, knownFields: new Set(Object.keys(schemas.SkillFrontmatter.shape)) };
  }
  return built;
}

export type SkillArgument = z.infer<Schemas["SkillArgument"]>;
export type SkillTrigger = z.infer<Schemas["SkillTrigger"]>;
export type SkillReferenceDoc = z.infer<Schemas["SkillReferenceDoc"]>;
export type SkillRun = z.infer<Schemas["SkillRun"]>;
export type SkillScript = z.infer<Schemas["SkillScript"]>;
export type SkillFrontmatterInput = z.input<Schemas["SkillFrontmatter"]>;
export type SkillFrontmatterParsed = z.infer<Schemas["SkillFrontmatter"]>;
