import * as z from "zod/mini";
import "./locale.js";
import { RequestId } from "./common.js";
import { MAX_ARGS_BYTES, utf8Bytes } from "./limits.js";

/**
 * API.md request bodies. Objects are strict: a misspelt field (`skillname`) is a 400, not silently
 * "no name". Limits on lane texts are checked again by the lane payloads; these fix the shape.
 */

/** API.md ProcessSkillRequest (spec §6a), over HTTP and in a `process-skill` frame. */
export const ProcessSkillRequest = z.strictObject({
  command: z.enum(["ACTIVATE", "CLEAR", "CLEAR_ALL"]),
  skillName: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
  args: z.optional(
    z.nullable(z.string().check(z.refine((t) => utf8Bytes(t) <= MAX_ARGS_BYTES, `must be at most ${MAX_ARGS_BYTES} bytes`))),
  ),
  oneShot: z.optional(z.boolean()),
  requestId: z.optional(RequestId),
});

const shortLabel = z.string().check(z.minLength(1), z.maxLength(128));

/** What the engine knows about the turn it is about to run; only rendering sees it. */
export const TurnContext = z.strictObject({
  tier: z.optional(shortLabel),
  model: z.optional(shortLabel),
  provider: z.optional(shortLabel),
  lang: z.optional(shortLabel),
  profile: z.optional(shortLabel),
});

export const ComposeBody = z.strictObject({
  message: z.optional(z.string()),
  context: z.optional(TurnContext),
  requestId: z.optional(RequestId),
});

export const CompleteBody = z.strictObject({ output: z.string(), final: z.optional(z.boolean()), requestId: z.optional(RequestId) });

/** API.md spawn body; identity (the user) comes from the token, never from here. */
export const SpawnBody = z.strictObject({
  recipe: z.string().check(z.minLength(1), z.maxLength(128)),
  projectId: z.string().check(z.minLength(1), z.maxLength(64)),
  // Shown in chat prompts and consoles: no control characters (issue 28).
  name: z.optional(
    // eslint-disable-next-line no-control-regex
    z.string().check(z.minLength(1), z.maxLength(128), z.regex(/^[^\u0000-\u001f\u007f-\u009f]+$/, "must not contain control characters")),
  ),
});

export const ToolBody = z.strictObject({ args: z.optional(z.record(z.string(), z.unknown())) });

/** `POST …/documents/{path}:restore`. */
export const RestoreBody = z.strictObject({ versionId: z.string().check(z.minLength(1), z.maxLength(1024)) });

/** `POST /brain/{tenant}/mcp`: one JSON-RPC message (the MCP SDK validates the rest). */
export const McpMessage = z.looseObject({
  jsonrpc: z.literal("2.0"),
  method: z.string(),
  id: z.optional(z.union([z.string(), z.number()])),
  params: z.optional(z.looseObject({})),
});

export type ProcessSkillRequest = z.infer<typeof ProcessSkillRequest>;
export type TurnContext = z.infer<typeof TurnContext>;
export type ComposeInput = z.infer<typeof ComposeBody>;
export type CompleteInput = z.infer<typeof CompleteBody>;
export type SpawnInput = z.infer<typeof SpawnBody>;
